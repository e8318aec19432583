import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import { fold } from '../decider.ts';
import { parseEvent } from '../event-schemas.ts';
import { given } from '../testing.ts';
import { checkDecider, type CheckCommand, type CheckEvent } from './check.ts';

const now = '2025-01-02T03:04:05.000Z';
const later = '2025-01-02T05:00:00.000Z';
const checkId = '3f2c1b7e-8d4a-4c2e-9b1f-0a1b2c3d4e5f';
const triggerId = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const triggerId2 = '1b2c3d4e-5f60-4718-9a2b-3c4d5e6f7081';
const token = 'trg_0123456789abcdefghij';
const scope = { now, actor: 'u-1', checkId, accountId: 'acc-1' };

function createCmd(): CheckCommand {
  return {
    ...scope,
    type: 'CreateCheck',
    check: { name: 'Orders', checkType: 'TCP', request: { hostname: 'db.test', port: 5432 } },
  };
}
const created = checkDecider.decide(createCmd(), { status: 'absent' })[0]!;
const triggerCreated: CheckEvent = { type: 'CheckTriggerCreated', data: { triggerId, token, at: now } };

describe('check triggers', () => {
  it('creates a trigger with the minted token, never called', () => {
    const state = given(checkDecider, [created])
      .when({ ...scope, type: 'CreateCheckTrigger', triggerId, token })
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

  it('refuses a second trigger for the same check (the application answers the existing one)', () => {
    given(checkDecider, [created, triggerCreated])
      .when({ ...scope, type: 'CreateCheckTrigger', triggerId: triggerId2, token })
      .thenError(ConflictError, /already has a trigger/);
  });

  it('refuses a token the application did not mint well', () => {
    given(checkDecider, [created])
      .when({ ...scope, type: 'CreateCheckTrigger', triggerId, token: 'short' })
      .thenError(ValidationError, /token/);
  });

  it('counts each call of the trigger it matched', () => {
    const call: CheckCommand = { ...scope, now: later, type: 'CallCheckTrigger', triggerId };
    const state = given(checkDecider, [
      created,
      triggerCreated,
      { type: 'CheckTriggerCalled', data: { triggerId, at: now } },
    ])
      .when(call)
      .thenEvents([{ type: 'CheckTriggerCalled', data: { triggerId, at: later } }]);
    expect(state.status === 'active' && state.trigger?.called).toBe(2);
    expect(state.status === 'active' && state.trigger?.calledAt).toBe(later);
  });

  it('answers a call for a deleted or replaced trigger as unknown', () => {
    const deleted: CheckEvent = { type: 'CheckTriggerDeleted', data: { triggerId, at: now } };
    given(checkDecider, [created, triggerCreated, deleted])
      .when({ ...scope, type: 'CallCheckTrigger', triggerId })
      .thenError(NotFoundError, /Unknown trigger/);
    const replaced: CheckEvent = { type: 'CheckTriggerCreated', data: { triggerId: triggerId2, token, at: later } };
    given(checkDecider, [created, triggerCreated, deleted, replaced])
      .when({ ...scope, type: 'CallCheckTrigger', triggerId })
      .thenError(NotFoundError, /Unknown trigger/);
  });

  it('deletes the trigger; deleting it again is a 404', () => {
    const state = given(checkDecider, [created, triggerCreated])
      .when({ ...scope, now: later, type: 'DeleteCheckTrigger' })
      .thenEvents([{ type: 'CheckTriggerDeleted', data: { triggerId, at: later } }]);
    expect(state.status === 'active' && 'trigger' in state).toBe(false);
    given(checkDecider, [created, triggerCreated, { type: 'CheckTriggerDeleted', data: { triggerId, at: later } }])
      .when({ ...scope, type: 'DeleteCheckTrigger' })
      .thenError(NotFoundError, /has no trigger/);
  });

  it("treats another account's check, or a deleted one, as unknown", () => {
    given(checkDecider, [created])
      .when({ ...scope, accountId: 'acc-2', type: 'CreateCheckTrigger', triggerId, token })
      .thenError(NotFoundError, /not found/);
    given(checkDecider, [created, triggerCreated, { type: 'CheckDeleted', data: { at: later } }])
      .when({ ...scope, type: 'CallCheckTrigger', triggerId })
      .thenError(NotFoundError, /not found/);
  });

  it('keeps the trigger when the check is updated', () => {
    const update: CheckCommand = {
      ...scope,
      type: 'UpdateCheck',
      check: { name: 'Orders 2', checkType: 'TCP', request: { hostname: 'db.test', port: 5432 } },
    };
    const past = [created, triggerCreated];
    const events = checkDecider.decide(update, fold(checkDecider, past));
    const state = fold(checkDecider, [...past, ...events]);
    expect(state.status === 'active' && state.trigger?.token).toBe(token);
  });

  it('validates its events against the stored schemas', () => {
    expect(parseEvent('CheckTriggerCreated', triggerCreated.data).type).toBe('CheckTriggerCreated');
    expect(() => parseEvent('CheckTriggerCreated', { triggerId, token: 'x', at: now })).toThrow();
  });
});
