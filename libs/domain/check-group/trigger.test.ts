import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import { given } from '../testing.ts';
import { checkGroupDecider, type CheckGroupCommand, type CheckGroupEvent } from './check-group.ts';

const now = '2025-01-02T03:04:05.000Z';
const later = '2025-01-02T05:00:00.000Z';
const groupId = '3f2c1b7e-8d4a-4c2e-9b1f-0a1b2c3d4e5f';
const triggerId = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const triggerId2 = '1b2c3d4e-5f60-4718-9a2b-3c4d5e6f7081';
const token = 'trg_0123456789abcdefghij';
const scope = { now, actor: 'u-1', groupId, accountId: 'acc-1' };

const created = checkGroupDecider.decide(
  { ...scope, type: 'CreateCheckGroup', group: { name: 'Shop' } },
  {
    status: 'absent',
  },
)[0]!;
const triggerCreated: CheckGroupEvent = { type: 'GroupTriggerCreated', data: { triggerId, token, at: now } };

describe('group triggers', () => {
  it('creates a trigger with the minted token, never called', () => {
    const state = given(checkGroupDecider, [created])
      .when({ ...scope, type: 'CreateGroupTrigger', triggerId, token })
      .thenEvents([triggerCreated]);
    expect(state.status === 'active' && state.trigger).toEqual({
      id: triggerId,
      token,
      called: 0,
      calledAt: null,
      createdAt: now,
      updatedAt: now,
    });
  });

  it('refuses a second trigger for the same group (the application answers the existing one)', () => {
    given(checkGroupDecider, [created, triggerCreated])
      .when({ ...scope, type: 'CreateGroupTrigger', triggerId: triggerId2, token })
      .thenError(ConflictError, /already has a trigger/);
  });

  it('refuses a token the application did not mint well', () => {
    given(checkGroupDecider, [created])
      .when({ ...scope, type: 'CreateGroupTrigger', triggerId, token: 'short' })
      .thenError(ValidationError, /token/);
  });

  it('counts each call of the trigger it matched', () => {
    const call: CheckGroupCommand = { ...scope, now: later, type: 'CallGroupTrigger', triggerId };
    const state = given(checkGroupDecider, [
      created,
      triggerCreated,
      { type: 'GroupTriggerCalled', data: { triggerId, at: now } },
    ])
      .when(call)
      .thenEvents([{ type: 'GroupTriggerCalled', data: { triggerId, at: later } }]);
    expect(state.status === 'active' && state.trigger).toMatchObject({ called: 2, calledAt: later });
  });

  it('a call for another trigger (deleted and re-created meanwhile) counts nothing', () => {
    given(checkGroupDecider, [created, triggerCreated])
      .when({ ...scope, type: 'CallGroupTrigger', triggerId: triggerId2 })
      .thenError(NotFoundError, /Unknown trigger/);
  });

  it('deletes the trigger; a second delete is a 404', () => {
    const state = given(checkGroupDecider, [created, triggerCreated])
      .when({ ...scope, type: 'DeleteGroupTrigger' })
      .thenEvents([{ type: 'GroupTriggerDeleted', data: { triggerId, at: now } }]);
    expect(state.status === 'active' && state.trigger).toBeUndefined();
    given(checkGroupDecider, [created, triggerCreated, { type: 'GroupTriggerDeleted', data: { triggerId, at: now } }])
      .when({ ...scope, type: 'DeleteGroupTrigger' })
      .thenError(NotFoundError, /has no trigger/);
  });

  it('an update of the group keeps its trigger', () => {
    const state = given(checkGroupDecider, [created, triggerCreated])
      .when({ ...scope, type: 'UpdateCheckGroup', group: { name: 'Shop 2' } })
      .thenEvents([expect.objectContaining({ type: 'CheckGroupUpdated' }) as CheckGroupEvent]);
    expect(state.status === 'active' && state.trigger?.id).toBe(triggerId);
  });

  it("another account's group, or a deleted one, has no trigger to manage", () => {
    given(checkGroupDecider, [created])
      .when({ ...scope, accountId: 'acc-2', type: 'CreateGroupTrigger', triggerId, token })
      .thenError(NotFoundError, /not found/);
    given(checkGroupDecider, [created, { type: 'CheckGroupDeleted', data: { at: now } }])
      .when({ ...scope, type: 'CreateGroupTrigger', triggerId, token })
      .thenError(NotFoundError, /not found/);
  });
});
