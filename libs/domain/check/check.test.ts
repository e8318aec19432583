import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import { given } from '../testing.ts';
import { defaultAlertSettings } from '../account/alert-settings.ts';
import { checkDecider, type CheckEvent, type CreateCheck } from './check.ts';
import { applyCheckDefaults, checkInputSchema, checkTypes, type Check, type CheckInput } from './check-schema.ts';

const now = '2025-01-02T03:04:05.000Z';
const later = '2025-01-02T05:00:00.000Z';
const checkId = '3f2c1b7e-8d4a-4c2e-9b1f-0a1b2c3d4e5f';
const groupId = '7d9f8e6c-5b4a-4392-8187-6f5e4d3c2b1a';
const create: CreateCheck = {
  type: 'CreateCheck',
  now,
  actor: 'u-1',
  checkId,
  accountId: 'acc-1',
  check: { name: 'Home page', checkType: 'API', frequency: 5 },
};

const fullCheck: Check = {
  id: checkId,
  name: 'Home page',
  checkType: 'API',
  activated: true,
  muted: false,
  frequency: 5,
  tags: [],
  locations: [],
  groupId: null,
  degradedResponseTime: 5000,
  maxResponseTime: 20000,
  sslCheckDomain: null,
  runtimeId: null,
  alertSettings: null,
  noDataAlerts: false,
};
const created: CheckEvent = { type: 'CheckCreated', data: { accountId: 'acc-1', check: fullCheck, at: now } };

describe('check: create', () => {
  it('creates a check with every default applied', () => {
    const state = given(checkDecider).when(create).thenEvents([created]);
    expect(state).toEqual({ status: 'active', accountId: 'acc-1', check: fullCheck, createdAt: now, updatedAt: now });
  });

  it('keeps the fields given', () => {
    const check: CheckInput = {
      name: 'Login',
      checkType: 'BROWSER',
      activated: false,
      muted: true,
      frequency: 1440,
      tags: ['prod'],
      locations: ['eu-west-1'],
      groupId,
      degradedResponseTime: 1000,
      maxResponseTime: 2000,
      sslCheckDomain: 'example.com',
      runtimeId: '2024.09',
      alertSettings: { escalationType: 'TIME_BASED' },
      noDataAlerts: true,
    };
    given(checkDecider)
      .when({ ...create, check })
      .thenEvents([
        {
          type: 'CheckCreated',
          data: {
            accountId: 'acc-1',
            at: now,
            check: {
              ...check,
              id: checkId,
              alertSettings: { ...defaultAlertSettings, escalationType: 'TIME_BASED' },
            } as Check,
          },
        },
      ]);
  });

  it('refuses an id that was already used, even by a deleted check', () => {
    given(checkDecider, [created]).when(create).thenError(ConflictError);
    given(checkDecider, [created, { type: 'CheckDeleted', data: { at: now } }])
      .when(create)
      .thenError(ConflictError);
  });

  it('refuses a check id that is not a uuid', () => {
    given(checkDecider)
      .when({ ...create, checkId: 'nope' })
      .thenError(ValidationError, /^id/);
  });

  it.each([
    ['name', { name: '' }],
    ['name', { name: 'x'.repeat(256) }],
    ['checkType', { checkType: 'SMTP' }],
    ['frequency', { frequency: 3 }],
    ['groupId', { groupId: 'not-a-uuid' }],
    ['tags', { tags: 'prod' }],
    ['alertSettings', { alertSettings: { reminders: { amount: 9 } } }],
  ])('refuses a bad %s, naming it', (field, patch) => {
    given(checkDecider)
      .when({ ...create, check: { ...create.check, ...patch } as CheckInput })
      .thenError(ValidationError, new RegExp(`^${field}`));
  });
});

describe('check response times', () => {
  const defaults = (checkType: CheckInput['checkType']) => {
    const { degradedResponseTime, maxResponseTime } = applyCheckDefaults({ name: 'c', checkType });
    return [degradedResponseTime, maxResponseTime];
  };

  it('defaults by type', () => {
    expect(defaults('API')).toEqual([5000, 20000]);
    expect(defaults('URL')).toEqual([3000, 5000]);
    expect(defaults('DNS')).toEqual([500, 1000]);
    for (const type of ['BROWSER', 'HEARTBEAT', 'TCP'] as const) expect(defaults(type)).toEqual([10000, 20000]);
    // A script's maxResponseTime is its run budget (see script.test.ts).
    for (const type of ['MULTI_STEP', 'PLAYWRIGHT'] as const) expect(defaults(type)).toEqual([30000, 240000]);
    expect(checkTypes).toHaveLength(8);
  });

  it('caps at 45 000 ms, and DNS at 5 000 ms', () => {
    const when = (check: Partial<CheckInput>) =>
      given(checkDecider).when({ ...create, check: { ...create.check, ...check } as CheckInput });
    expect(when({ maxResponseTime: 45_000, degradedResponseTime: 45_000 }).events()).toHaveLength(1);
    when({ maxResponseTime: 45_001 }).thenError(ValidationError, /^maxResponseTime/);
    when({ checkType: 'DNS', maxResponseTime: 5_001 }).thenError(
      ValidationError,
      /^maxResponseTime: must be at most 5000/,
    );
    when({ checkType: 'DNS', degradedResponseTime: 6_000, maxResponseTime: 5_000 }).thenError(
      ValidationError,
      /^degradedResponseTime/,
    );
    expect(when({ checkType: 'DNS', maxResponseTime: 5_000 }).events()).toHaveLength(1);
  });

  it('refuses a degraded time above the max, also against the default max', () => {
    const when = (check: Partial<CheckInput>) =>
      given(checkDecider).when({ ...create, check: { ...create.check, ...check } as CheckInput });
    when({ degradedResponseTime: 3000, maxResponseTime: 2000 }).thenError(
      ValidationError,
      /^degradedResponseTime: must not exceed maxResponseTime/,
    );
    when({ checkType: 'URL', degradedResponseTime: 6000 }).thenError(ValidationError, /^degradedResponseTime/);
    when({ maxResponseTime: 4000 }).thenError(ValidationError, /^degradedResponseTime/);
  });

  it('checkInputSchema reports the same rule for the HTTP layer', () => {
    const result = checkInputSchema.safeParse({
      name: 'c',
      checkType: 'API',
      degradedResponseTime: 30_000,
      maxResponseTime: 20_000,
    });
    expect(result.error?.issues[0]?.path).toEqual(['degradedResponseTime']);
    expect(checkInputSchema.safeParse({ name: 'c', checkType: 'NOPE' }).success).toBe(false);
  });
});

describe('check: update and delete', () => {
  const update = { type: 'UpdateCheck', now: later, actor: 'u-1', checkId, accountId: 'acc-1' } as const;

  it('replaces the check, keeping its id and creation time', () => {
    const state = given(checkDecider, [created])
      .when({ ...update, check: { name: 'Renamed', checkType: 'API', muted: true } })
      .thenEvents([
        {
          type: 'CheckUpdated',
          data: { check: { ...fullCheck, name: 'Renamed', muted: true, frequency: 10 }, at: later },
        },
      ]);
    expect(state).toMatchObject({ status: 'active', createdAt: now, updatedAt: later, check: { name: 'Renamed' } });
  });

  it('refuses to change the check type', () => {
    given(checkDecider, [created])
      .when({ ...update, check: { name: 'x', checkType: 'URL' } })
      .thenError(ValidationError, /^checkType/);
  });

  it('answers NotFound for an absent, deleted or other-account check', () => {
    const check = { name: 'x', checkType: 'API' } as const;
    given(checkDecider)
      .when({ ...update, check })
      .thenError(NotFoundError);
    given(checkDecider, [created, { type: 'CheckDeleted', data: { at: now } }])
      .when({ ...update, check })
      .thenError(NotFoundError);
    given(checkDecider, [created])
      .when({ ...update, accountId: 'acc-2', check })
      .thenError(NotFoundError);
  });

  it('deletes a check once', () => {
    const remove = { type: 'DeleteCheck', now: later, actor: 'u-1', checkId, accountId: 'acc-1' } as const;
    const state = given(checkDecider, [created])
      .when(remove)
      .thenEvents([{ type: 'CheckDeleted', data: { at: later } }]);
    expect(state).toEqual({ status: 'deleted', accountId: 'acc-1', checkId, deletedAt: later });
    given(checkDecider, [created, { type: 'CheckDeleted', data: { at: later } }])
      .when(remove)
      .thenError(NotFoundError);
    given(checkDecider, [created])
      .when({ ...remove, accountId: 'acc-2' })
      .thenError(NotFoundError);
  });
});
