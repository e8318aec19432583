import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import { given } from '../testing.ts';
import {
  maintenanceWindowDecider,
  type MaintenanceWindow,
  type MaintenanceWindowEvent,
  type MaintenanceWindowInput,
} from './maintenance-window.ts';

const now = '2026-11-20T08:00:00.000Z';
const later = '2026-11-21T08:00:00.000Z';
const windowId = '7d9f8e6c-5b4a-4392-8187-6f5e4d3c2b1a';
const checkA = '3f2c1b7e-8d4a-4c2e-9b1f-0a1b2c3d4e5f';
const checkB = '5a1e2b3c-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const base = { now, actor: 'u-1', windowId, accountId: 'acc-1' };
const input: MaintenanceWindowInput = {
  name: 'Deploy',
  tags: ['api'],
  startsAt: '2026-12-01T23:00:00+01:00',
  endsAt: '2026-12-01T23:30:00Z',
};
const stored: MaintenanceWindow = {
  id: windowId,
  name: 'Deploy',
  tags: ['api'],
  checkIds: [],
  startsAt: '2026-12-01T22:00:00.000Z',
  endsAt: '2026-12-01T23:30:00.000Z',
  repeatInterval: null,
  repeatUnit: null,
  repeatEndsAt: null,
  pauseRuns: true,
  createdAt: now,
  updatedAt: now,
};
const created: MaintenanceWindowEvent = {
  type: 'MaintenanceWindowCreated',
  data: { accountId: 'acc-1', window: stored },
};
const create = (window: MaintenanceWindowInput, knownCheckIds: string[] = []) =>
  given(maintenanceWindowDecider).when({ ...base, type: 'CreateMaintenanceWindow', window, knownCheckIds });

describe('maintenance window', () => {
  it('given nothing, when created, then the times are stored in UTC with the defaults', () => {
    const state = create(input).thenEvents([created]);
    expect(state).toEqual({ status: 'active', accountId: 'acc-1', window: stored });
  });

  it('given nothing, when created with a check of another account, then not found naming the field', () => {
    create({ ...input, checkIds: [checkA, checkB] }, [checkA]).thenError(NotFoundError, /^checkIds\[1\]/);
  });

  it.each([
    [{ ...input, endsAt: input.startsAt }, /^endsAt: must be after startsAt/],
    [{ ...input, tags: [] }, /^tags: name at least one tag or one check id/],
    [{ ...input, repeatUnit: 'DAY' as const }, /^repeatInterval: repeatUnit and repeatInterval go together/],
    [{ ...input, repeatInterval: 2 }, /^repeatUnit: repeatUnit and repeatInterval go together/],
    [{ ...input, repeatUnit: 'YEAR' as never, repeatInterval: 1 }, /^repeatUnit: must be DAY, WEEK or MONTH/],
    [{ ...input, repeatEndsAt: '2027-01-01T00:00:00Z' }, /^repeatEndsAt: is only for a repeating window/],
    [
      { ...input, repeatUnit: 'DAY' as const, repeatInterval: 1, repeatEndsAt: '2026-11-01T00:00:00Z' },
      /^repeatEndsAt: must not be before startsAt/,
    ],
    [
      { ...input, endsAt: '2026-12-03T00:00:00Z', repeatUnit: 'DAY' as const, repeatInterval: 1 },
      /^endsAt: a window that repeats every 1 DAY may not last longer/,
    ],
    [{ ...input, startsAt: 'tomorrow' }, /^startsAt: must be an ISO 8601 time/],
    [{ ...input, startsAt: '1970-01-01T00:00:00Z' }, /^startsAt: must lie between/],
    [{ ...input, checkIds: [checkA, checkA] }, /^checkIds: a check id is listed twice/],
    [{ ...input, repeatUnit: 'WEEK' as const, repeatInterval: 0 }, /^repeatInterval/],
  ])('given nothing, when created with %j, then a validation error naming the field', (window, message) => {
    create(window, [checkA]).thenError(ValidationError, message);
  });

  it('given a window, when it is created again, then a conflict', () => {
    given(maintenanceWindowDecider, [created])
      .when({ ...base, type: 'CreateMaintenanceWindow', window: input, knownCheckIds: [] })
      .thenError(ConflictError);
  });

  it('given a window, when replaced, then it keeps its id and creation time', () => {
    const window = { ...input, name: 'Migration', checkIds: [checkA], pauseRuns: false };
    const state = given(maintenanceWindowDecider, [created])
      .when({ ...base, now: later, type: 'UpdateMaintenanceWindow', window, knownCheckIds: [checkA] })
      .thenEvents([
        {
          type: 'MaintenanceWindowUpdated',
          data: {
            window: { ...stored, name: 'Migration', checkIds: [checkA], pauseRuns: false, updatedAt: later },
          },
        },
      ]);
    expect(state.status === 'active' && state.window.createdAt).toBe(now);
  });

  it('given a window of another account, when updated or deleted, then not found', () => {
    const other = { ...base, accountId: 'acc-2' };
    given(maintenanceWindowDecider, [created])
      .when({ ...other, type: 'UpdateMaintenanceWindow', window: input, knownCheckIds: [] })
      .thenError(NotFoundError);
    given(maintenanceWindowDecider, [created])
      .when({ ...other, type: 'DeleteMaintenanceWindow' })
      .thenError(NotFoundError);
  });

  it('given a deleted window, when deleted again or updated, then not found', () => {
    const deleted: MaintenanceWindowEvent = { type: 'MaintenanceWindowDeleted', data: { at: later } };
    const state = given(maintenanceWindowDecider, [created])
      .when({ ...base, now: later, type: 'DeleteMaintenanceWindow' })
      .thenEvents([deleted]);
    expect(state).toEqual({ status: 'deleted', accountId: 'acc-1', windowId, deletedAt: later });
    given(maintenanceWindowDecider, [created, deleted])
      .when({ ...base, type: 'DeleteMaintenanceWindow' })
      .thenError(NotFoundError);
  });
});
