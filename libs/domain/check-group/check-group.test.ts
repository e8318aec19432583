import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import { given } from '../testing.ts';
import { checkGroupDecider, effectiveLocations, type CheckGroupEvent, type CheckGroupInput } from './check-group.ts';

const now = '2025-01-02T03:04:05.000Z';
const groupId = '7d9f8e6c-5b4a-4392-8187-6f5e4d3c2b1a';
const base = { now, actor: 'u-1', groupId, accountId: 'acc-1' };
const group = { id: groupId, name: 'Prod', tags: [], runtimeId: null, locations: [], environmentVariables: [] };
const created: CheckGroupEvent = { type: 'CheckGroupCreated', data: { accountId: 'acc-1', group, at: now } };
const deleted: CheckGroupEvent = { type: 'CheckGroupDeleted', data: { at: now } };

describe('check group', () => {
  it('creates a group with defaults', () => {
    const state = given(checkGroupDecider)
      .when({ ...base, type: 'CreateCheckGroup', group: { name: 'Prod' } })
      .thenEvents([created]);
    expect(state).toEqual({ status: 'active', accountId: 'acc-1', group, createdAt: now, updatedAt: now });
  });

  it('keeps group variables, locked off by default', () => {
    const input: CheckGroupInput = {
      name: 'Prod',
      tags: ['a'],
      runtimeId: '2024.09',
      environmentVariables: [{ key: 'BASE_URL', value: 'https://x' }],
    };
    given(checkGroupDecider)
      .when({ ...base, type: 'CreateCheckGroup', group: input })
      .thenEvents([
        {
          type: 'CheckGroupCreated',
          data: {
            accountId: 'acc-1',
            at: now,
            group: {
              ...group,
              tags: ['a'],
              runtimeId: '2024.09',
              environmentVariables: [{ key: 'BASE_URL', value: 'https://x', locked: false }],
            },
          },
        },
      ]);
  });

  it('refuses a variable key that breaks the key rule, or a repeated key, naming it', () => {
    const when = (environmentVariables: CheckGroupInput['environmentVariables']) =>
      given(checkGroupDecider).when({ ...base, type: 'CreateCheckGroup', group: { name: 'G', environmentVariables } });
    when([{ key: '9LIVES', value: 'x' }]).thenError(ValidationError, /^environmentVariables\[0\]\.key/);
    when([
      { key: 'A', value: '1' },
      { key: 'A', value: '2' },
    ]).thenError(ValidationError, /^environmentVariables\[1\]\.key: duplicate/);
    when([{ key: 'A', value: 'x'.repeat(10_001) }]).thenError(ValidationError, /^environmentVariables\[0\]\.value/);
  });

  it('refuses to create a group twice, or without a name', () => {
    given(checkGroupDecider, [created])
      .when({ ...base, type: 'CreateCheckGroup', group: { name: 'Prod' } })
      .thenError(ConflictError);
    given(checkGroupDecider)
      .when({ ...base, type: 'CreateCheckGroup', group: { name: '' } })
      .thenError(ValidationError, /^name/);
  });

  it('replaces a group on update', () => {
    const state = given(checkGroupDecider, [created])
      .when({ ...base, type: 'UpdateCheckGroup', group: { name: 'Staging', tags: ['s'] } })
      .thenEvents([
        { type: 'CheckGroupUpdated', data: { group: { ...group, name: 'Staging', tags: ['s'] }, at: now } },
      ]);
    expect(state).toMatchObject({ status: 'active', group: { name: 'Staging' } });
  });

  it('answers NotFound when updating an absent, deleted or other-account group', () => {
    const update = { ...base, type: 'UpdateCheckGroup', group: { name: 'X' } } as const;
    given(checkGroupDecider).when(update).thenError(NotFoundError);
    given(checkGroupDecider, [created, deleted]).when(update).thenError(NotFoundError);
    given(checkGroupDecider, [created])
      .when({ ...update, accountId: 'acc-2' })
      .thenError(NotFoundError);
  });

  it('deletes an empty group', () => {
    const state = given(checkGroupDecider, [created])
      .when({ ...base, type: 'DeleteCheckGroup', checkCount: 0 })
      .thenEvents([deleted]);
    expect(state).toEqual({ status: 'deleted', accountId: 'acc-1', groupId, deletedAt: now });
  });

  it('refuses to delete a group that still has checks', () => {
    given(checkGroupDecider, [created])
      .when({ ...base, type: 'DeleteCheckGroup', checkCount: 2 })
      .thenError(ConflictError, /still has 2 check/);
  });

  it('answers NotFound when deleting an absent group', () => {
    given(checkGroupDecider)
      .when({ ...base, type: 'DeleteCheckGroup', checkCount: 0 })
      .thenError(NotFoundError);
  });
});

describe('effectiveLocations', () => {
  it("is the check's own locations, else its group's, else none (the default location)", () => {
    expect(effectiveLocations({ locations: ['eu-west-1'] }, { locations: ['office'] })).toEqual(['eu-west-1']);
    expect(effectiveLocations({ locations: [] }, { locations: ['office'] })).toEqual(['office']);
    // A group stored before groups had locations.
    expect(effectiveLocations({ locations: [] }, {})).toEqual([]);
    expect(effectiveLocations({ locations: [] }, null)).toEqual([]);
  });
});
