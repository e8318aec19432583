import { describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '#core';
import { given } from '../testing.ts';
import { parseEvent } from '../event-schemas.ts';
import { checkDecider, type CheckEvent, type CreateCheck } from './check.ts';
import { checkInputSchema, isManagedCheck, type Check, type CheckInput } from './check-schema.ts';

const now = '2025-01-02T03:04:05.000Z';
const later = '2025-01-02T05:00:00.000Z';
const checkId = '3f2c1b7e-8d4a-4c2e-9b1f-0a1b2c3d4e5f';
const token = 'tok_0123456789abcdefghij';
const token2 = 'tok_zyxwvutsrqponmlkjihg';

const apiCheck: CheckInput = {
  name: 'Orders API',
  checkType: 'API',
  frequency: 1,
  request: {
    method: 'GET',
    url: 'https://api.example.com/orders?x={{TENANT}}',
    headers: [{ key: 'authorization', value: 'Bearer {{TOKEN}}' }],
    assertions: [
      { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' },
      { source: 'JSON_BODY', property: '$.items.length', comparison: 'GREATER_THAN', target: '0' },
    ],
  },
  retryStrategy: { type: 'LINEAR', maxRetries: 2, baseBackoffSeconds: 5 },
};
const create = (check: CheckInput, pingToken?: string): CreateCheck => ({
  type: 'CreateCheck',
  now,
  actor: 'u-1',
  checkId,
  accountId: 'acc-1',
  check,
  ...(pingToken ? { pingToken } : {}),
});
const heartbeat: CheckInput = {
  name: 'Nightly backup',
  checkType: 'HEARTBEAT',
  heartbeat: { period: 1, periodUnit: 'days', grace: 30, graceUnit: 'minutes' },
};

function createdCheck(events: CheckEvent[]): Check {
  const first = events[0];
  if (first?.type !== 'CheckCreated') throw new Error('expected CheckCreated');
  return first.data.check;
}

describe('check definitions', () => {
  it('stores an API request with its defaults, assertions and retry strategy', () => {
    const check = createdCheck(given(checkDecider).when(create(apiCheck)).events());
    expect(check.checkType).toBe('API');
    if (check.checkType !== 'API') return;
    expect(check.request).toMatchObject({
      method: 'GET',
      bodyType: 'NONE',
      followRedirects: true,
      skipSSL: false,
      queryParameters: [],
    });
    expect(check.request?.assertions[1]).toEqual({
      source: 'JSON_BODY',
      property: '$.items.length',
      comparison: 'GREATER_THAN',
      target: '0',
    });
    expect(check.retryStrategy).toEqual({
      type: 'LINEAR',
      maxRetries: 2,
      baseBackoffSeconds: 5,
      maxDurationSeconds: 600,
      sameRegion: true,
    });
    expect(isManagedCheck(check)).toBe(true);
  });

  it('keeps a check without a definition valid, as an external check', () => {
    const check = createdCheck(
      given(checkDecider)
        .when(create({ name: 'fed', checkType: 'API' }))
        .events(),
    );
    expect(isManagedCheck(check)).toBe(false);
    const multi = createdCheck(
      given(checkDecider)
        .when(create({ name: 'ms', checkType: 'MULTI_STEP' }))
        .events(),
    );
    expect(isManagedCheck(multi)).toBe(false);
  });

  it.each([
    [
      'a URL check asserting on the body',
      {
        checkType: 'URL',
        request: { url: 'http://x.test', assertions: [{ source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'a' }] },
      },
      /^request\.assertions\[0\]\.source: URL checks assert on STATUS_CODE/,
    ],
    [
      'a TCP check asserting on a status code',
      {
        checkType: 'TCP',
        request: {
          hostname: 'db.test',
          port: 5432,
          assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
        },
      },
      /^request\.assertions\[0\]\.source/,
    ],
    [
      'a non-http URL',
      { checkType: 'API', request: { url: 'file:///etc/passwd' } },
      /^request\.url: must be an http\(s\) URL/,
    ],
    [
      'an unknown comparison',
      {
        checkType: 'API',
        request: { url: 'http://x.test', assertions: [{ source: 'STATUS_CODE', comparison: 'ROUGHLY', target: '1' }] },
      },
      /^request\.assertions\[0\]\.comparison/,
    ],
    ['a TCP port out of range', { checkType: 'TCP', request: { hostname: 'db.test', port: 70000 } }, /^request\.port/],
    [
      'a DNS record type it cannot query',
      { checkType: 'DNS', request: { query: 'x.test', recordType: 'SRV' } },
      /^request\.recordType/,
    ],
    [
      'a heartbeat without a period',
      { checkType: 'HEARTBEAT', heartbeat: { periodUnit: 'minutes' } },
      /^heartbeat\.period/,
    ],
    [
      'too many retries',
      { checkType: 'API', request: { url: 'http://x.test' }, retryStrategy: { type: 'FIXED', maxRetries: 11 } },
      /^retryStrategy\.maxRetries/,
    ],
    ['a location with a control character', { checkType: 'API', locations: ['eu\u0001west'] }, /^locations\[0\]/],
    [
      'an unknown field in a request',
      { checkType: 'API', request: { url: 'http://x.test', verb: 'GET' } },
      /^request\.verb: unknown field|^request/,
    ],
  ])('refuses %s, naming the field', (_label, patch, message) => {
    given(checkDecider)
      .when(create({ name: 'c', ...patch } as CheckInput))
      .thenError(ValidationError, message);
  });

  it('shows the definition as one variant per checkType', () => {
    const json = JSON.stringify(checkInputSchema.safeParse({ name: 'c', checkType: 'SMTP' }).error?.issues);
    expect(json).toContain('checkType');
    expect(checkInputSchema.safeParse({ name: 'c', checkType: 'DNS', request: { query: 'a.test' } }).success).toBe(
      true,
    );
    // A DNS definition is not an API definition: the union is discriminated by type.
    expect(checkInputSchema.safeParse({ name: 'c', checkType: 'DNS', request: { url: 'http://a.test' } }).success).toBe(
      false,
    );
  });
});

describe('heartbeat ping tokens', () => {
  it('mints the token given with the command', () => {
    const check = createdCheck(given(checkDecider).when(create(heartbeat, token)).events());
    expect(check.checkType === 'HEARTBEAT' && check.heartbeat).toEqual({
      period: 1,
      periodUnit: 'days',
      grace: 30,
      graceUnit: 'minutes',
      pingToken: token,
    });
  });

  it('refuses a heartbeat definition when no token was minted', () => {
    given(checkDecider)
      .when(create(heartbeat))
      .thenError(ValidationError, /ping token/);
  });

  it('keeps the token across an update, ignoring a token sent back in the body', () => {
    const past = given(checkDecider).when(create(heartbeat, token)).events();
    const events = given(checkDecider, past)
      .when({
        type: 'UpdateCheck',
        now: later,
        actor: 'u-1',
        checkId,
        accountId: 'acc-1',
        pingToken: token2,
        check: {
          ...heartbeat,
          heartbeat: { period: 2, periodUnit: 'hours', pingToken: 'forged_token_value_123', pingUrl: 'x' },
        } as CheckInput,
      })
      .events();
    const updated = events[0]?.type === 'CheckUpdated' ? events[0].data.check : null;
    expect(updated?.checkType === 'HEARTBEAT' && updated.heartbeat).toEqual({
      period: 2,
      periodUnit: 'hours',
      grace: 0,
      graceUnit: 'minutes',
      pingToken: token,
    });
    // What is appended must read back through the event schema.
    expect(parseEvent('CheckUpdated', events[0]!.data)).toEqual(events[0]);
  });

  it('rotates the token', () => {
    const past = given(checkDecider).when(create(heartbeat, token)).events();
    const state = given(checkDecider, past)
      .when({ type: 'RotateHeartbeatToken', now: later, actor: 'u-1', checkId, accountId: 'acc-1', pingToken: token2 })
      .thenEvents([{ type: 'HeartbeatTokenRotated', data: { pingToken: token2, at: later } }]);
    expect(state.status === 'active' && state.check.checkType === 'HEARTBEAT' && state.check.heartbeat?.pingToken).toBe(
      token2,
    );
  });

  it('refuses to rotate a check of another account, or one that is not a heartbeat', () => {
    const past = given(checkDecider).when(create(heartbeat, token)).events();
    const rotate = { type: 'RotateHeartbeatToken' as const, now: later, actor: 'u-1', checkId, pingToken: token2 };
    given(checkDecider, past)
      .when({ ...rotate, accountId: 'acc-2' })
      .thenError(NotFoundError);
    const api = given(checkDecider).when(create(apiCheck)).events();
    given(checkDecider, api)
      .when({ ...rotate, accountId: 'acc-1' })
      .thenError(ValidationError, /not a heartbeat/);
  });
});
