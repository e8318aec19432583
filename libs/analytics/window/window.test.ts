import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { createSqliteStateStore, type StateStore } from '#statestore';
import { createDuckDbAnalyticsStore } from '../duckdb.ts';
import { sampleCheckResult } from '../fixtures.ts';
import type { AnalyticsStore } from '../port.ts';
import { createAnalyticsReader } from '../reader/reader.ts';
import { parseAnalyticsParams, type RawParams } from '../reader/params.ts';
import { createStateStoreTokens } from './state-tokens.ts';
import { withChangeTokens, type ChangeTokens } from './tokens.ts';
import { createCheckWindow, type CheckWindowOptions } from './window.ts';

// The window's rules on the embedded engine and state store; its answers against every engine
// are in test/analytics/engines.int.test.ts.
const log = createLogger({ level: 'silent' });
const HOUR = 3_600_000;
let clock = Date.UTC(2026, 0, 10);
let store: AnalyticsStore;
let state: StateStore;
let tokens: ChangeTokens;
let writer: AnalyticsStore;

beforeEach(async () => {
  clock = Date.UTC(2026, 0, 10);
  store = createDuckDbAnalyticsStore({ path: ':memory:', log });
  await store.migrate();
  state = createSqliteStateStore({ path: ':memory:', log });
  tokens = createStateStoreTokens(state);
  writer = withChangeTokens(store, tokens);
});
afterEach(async () => {
  await store.close();
  await state.close();
});

const runs = (accountId: string, checkId: string, times: number[], responseTime = 100) =>
  times.map((ms) =>
    sampleCheckResult({ accountId, checkId, checkType: 'API', startedAt: new Date(ms).toISOString(), responseTime }),
  );

function open(options: Partial<CheckWindowOptions> = {}) {
  const window = createCheckWindow(store, { tokens, maxRows: 100_000, now: () => clock, log, ...options });
  const reader = createAnalyticsReader(store, { window });
  const read = (accountId: string, checkId: string, params: RawParams = {}) =>
    reader.read({
      ...parseAnalyticsParams(
        { metrics: 'responseTime_avg,availability', quickRange: 'last24Hours', ...params },
        { checkType: 'API', now: new Date(clock) },
      ),
      accountId,
      checkId,
      checkType: 'API',
    });
  /** Reads twice with the load settled between: the second read's answer and whether memory gave it. */
  const twice = async (accountId: string, checkId: string, params: RawParams = {}) => {
    await read(accountId, checkId, params);
    await window.settled();
    const before = window.stats().hits;
    const answer = await read(accountId, checkId, params);
    return { answer, hit: window.stats().hits > before };
  };
  return { window, read, twice };
}

const avg = (answer: Awaited<ReturnType<ReturnType<typeof open>['read']>>) =>
  answer.series[0]?.data[0]?.responseTime_avg;

describe('check window', () => {
  it('serves an unchanged check from memory, and reloads it after a write through the store', async () => {
    const [account, check] = [randomUUID(), randomUUID()];
    await writer.insert(runs(account, check, [clock - 2 * HOUR, clock - HOUR], 100));
    const { twice, read, window } = open();
    const first = await twice(account, check);
    expect(first).toMatchObject({ hit: true });
    expect(avg(first.answer)).toBe(100);

    await writer.insert(runs(account, check, [clock - HOUR / 2], 400));
    // The token changed: the engine answers, with the new run, and the window loads again.
    expect(avg(await read(account, check))).toBe(200);
    await window.settled();
    const hits = window.stats().hits;
    expect(avg(await read(account, check))).toBe(200);
    expect(window.stats().hits).toBe(hits + 1);
  });

  it("takes a token read with the caller's own keys instead of reading it, and misses when it was renewed", async () => {
    const [account, check] = [randomUUID(), randomUUID()];
    await writer.insert(runs(account, check, [clock - 2 * HOUR], 100));
    let reads = 0;
    const counting: ChangeTokens = { ...tokens, read: (keys) => (reads++, tokens.read(keys)) };
    const window = createCheckWindow(store, { tokens: counting, maxRows: 100_000, now: () => clock, log });
    const reader = createAnalyticsReader(store, { window });
    const key = window.tokenKey({ accountId: account, checkId: check });
    expect(key).toBe(`analytics-changed:${account}:${check}`);
    const query = {
      ...parseAnalyticsParams(
        { metrics: 'responseTime_avg', quickRange: 'last24Hours' },
        { checkType: 'API', now: new Date(clock) },
      ),
      accountId: account,
      checkId: check,
      checkType: 'API' as const,
    };
    await reader.read(query);
    await window.settled();
    const held = await state.get(key!);
    reads = 0;
    expect(avg(await reader.read(query, { token: held }))).toBe(100);
    expect(window.stats()).toMatchObject({ hits: 1 });
    expect(reads).toBe(0);
    // A write renews the token: read with the caller's keys after it, the new one sends the read to the engine.
    await writer.insert(runs(account, check, [clock - HOUR], 300));
    const renewed = await state.get(key!);
    expect(renewed).not.toBe(held);
    expect(avg(await reader.read(query, { token: renewed }))).toBe(200);
    expect(window.stats()).toMatchObject({ hits: 1, misses: 2 });
    expect(avg(await reader.read(query, { token: null }))).toBe(200);
  });

  it('never serves a check without a token: results written around the tokens', async () => {
    const [account, check] = [randomUUID(), randomUUID()];
    await store.insert(runs(account, check, [clock - HOUR]));
    const { twice, window } = open();
    expect((await twice(account, check)).hit).toBe(false);
    expect(window.stats()).toMatchObject({ loads: 0, checks: 0 });
  });

  it('loads again once the rows are older than maxAgeMs, changed or not', async () => {
    const [account, check] = [randomUUID(), randomUUID()];
    await writer.insert(runs(account, check, [clock - HOUR]));
    const { twice, read, window } = open({ maxAgeMs: 30_000 });
    expect((await twice(account, check)).hit).toBe(true);
    clock += 30_001;
    const hits = window.stats().hits;
    await read(account, check);
    expect(window.stats().hits).toBe(hits);
    await window.settled();
    expect(window.stats().loads).toBe(2);
  });

  it('keys by account and check: another account asking the same check id is not served its rows', async () => {
    const [owner, other, check] = [randomUUID(), randomUUID(), randomUUID()];
    await writer.insert(runs(owner, check, [clock - HOUR], 100));
    await writer.insert(runs(other, check, [clock - HOUR], 900));
    const { twice, read } = open();
    expect(avg((await twice(owner, check)).answer)).toBe(100);
    expect(avg(await read(other, check))).toBe(900);
    expect(avg((await twice(other, check)).answer)).toBe(900);
    expect(avg((await twice(owner, check)).answer)).toBe(100);
  });

  it('holds at most maxRows, forgetting the least recently read check first', async () => {
    const account = randomUUID();
    const checks = [randomUUID(), randomUUID(), randomUUID()];
    for (const check of checks) await writer.insert(runs(account, check, [clock - 3 * HOUR, clock - 2 * HOUR]));
    const { twice, window } = open({ maxRows: 5 });
    await twice(account, checks[0]!);
    await twice(account, checks[1]!);
    expect(window.stats()).toMatchObject({ checks: 2, rows: 4 });
    await twice(account, checks[0]!);
    await twice(account, checks[2]!);
    expect(window.stats()).toMatchObject({ checks: 2, rows: 4 });
    expect((await twice(account, checks[0]!)).hit).toBe(true);
  });

  it('leaves a check with more runs than maxCheckRows to the engine', async () => {
    const [account, check] = [randomUUID(), randomUUID()];
    await writer.insert(
      runs(
        account,
        check,
        [1, 2, 3, 4].map((h) => clock - h * HOUR),
      ),
    );
    const { twice, window } = open({ maxCheckRows: 3 });
    expect((await twice(account, check)).hit).toBe(false);
    expect(window.stats()).toMatchObject({ loads: 1, checks: 0 });
    // Remembered as too busy: no second load.
    await twice(account, check);
    expect(window.stats().loads).toBe(1);
  });

  it('asks the engine for a window reaching back past the span, without loading', async () => {
    const [account, check] = [randomUUID(), randomUUID()];
    await writer.insert(runs(account, check, [clock - 40 * 24 * HOUR, clock - HOUR], 100));
    const { twice, window } = open({ spanMs: 7 * 24 * HOUR });
    const old = await twice(account, check, { quickRange: 'last30Days' });
    expect(old.hit).toBe(false);
    expect(window.stats().loads).toBe(0);
    expect(old.answer.series[0]?.data[0]?.availability).toBe(100);
    expect((await twice(account, check)).hit).toBe(true);
    // Asking past the span again leaves the held runs alone: the next short read is still a hit.
    expect((await twice(account, check, { quickRange: 'last30Days' })).hit).toBe(false);
    expect((await twice(account, check)).hit).toBe(true);
    expect(window.stats().loads).toBe(1);
  });

  it('leaves out excluded ranges (maintenance windows) as the engine does', async () => {
    const [account, check] = [randomUUID(), randomUUID()];
    await writer.insert(
      runs(
        account,
        check,
        [5, 4, 3, 2].map((h) => clock - h * HOUR),
        100,
      ),
    );
    await writer.insert(runs(account, check, [clock - 3.5 * HOUR], 900));
    const { window } = open();
    const engine = createAnalyticsReader(store);
    const windowed = createAnalyticsReader(store, { window });
    const query = {
      ...parseAnalyticsParams(
        { metrics: 'responseTime_max,responseTime_p50,availability', quickRange: 'last24Hours' },
        { checkType: 'API', now: new Date(clock) },
      ),
      accountId: account,
      checkId: check,
      checkType: 'API' as const,
      exclude: [{ fromMs: clock - 3.75 * HOUR, toMs: clock - 2.5 * HOUR }],
    };
    await windowed.read(query);
    await window.settled();
    const hits = window.stats().hits;
    const held = await windowed.read(query);
    expect(window.stats().hits).toBe(hits + 1);
    expect(held.series).toEqual((await engine.read(query)).series);
    expect(held.series).toEqual([{ data: [{ responseTime_max: 100, responseTime_p50: 100, availability: 100 }] }]);
  });

  it('answers from the engine when the tokens cannot be read', async () => {
    const [account, check] = [randomUUID(), randomUUID()];
    await writer.insert(runs(account, check, [clock - HOUR], 100));
    const { twice, read } = open();
    expect((await twice(account, check)).hit).toBe(true);
    await state.close();
    expect(avg(await read(account, check))).toBe(100);
  });
});
