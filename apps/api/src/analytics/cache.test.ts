import { describe, expect, it, vi } from 'vitest';
import { parseAnalyticsParams, type AnalyticsAnswer } from '#analytics';
import { createLogger } from '#core';
import { createSqliteStateStore } from '#statestore';
import { analyticsCacheKey, createAnalyticsCache } from './cache.ts';

const scope = { accountId: 'a1', checkId: 'c1', checkType: 'API' };
const at = (iso: string) => new Date(iso);
const request = (params: Record<string, string>, now: Date) =>
  parseAnalyticsParams({ metrics: 'availability', ...params }, { checkType: 'API', now });
const key = (params: Record<string, string>, now: Date, s = scope) =>
  analyticsCacheKey(s, request(params, now), now, 30_000);

describe('analytics cache key', () => {
  it('starts with the account, so accounts never share an entry', () => {
    const now = at('2024-01-01T10:00:00Z');
    expect(key({}, now)).toMatch(/^analytics-cache:a1:c1:[0-9a-f]{64}$/);
    expect(key({}, now, { ...scope, accountId: 'a2' })).not.toBe(key({}, now));
  });

  it('changes with anything that shapes the answer', () => {
    const now = at('2024-01-01T10:00:00Z');
    const variants: Record<string, string>[] = [
      {},
      { limit: '11' },
      { page: '2' },
      { groupBy: 'runLocation' },
      { filterByStatus: 'failure' },
      { aggregationInterval: '5' },
      { metrics: 'retries' },
      { quickRange: 'last7Days' },
      { from: '1704067200', to: '1704070800' },
    ];
    expect(new Set(variants.map((params) => key(params, now))).size).toBe(variants.length);
  });

  it('keeps a quick range for at most one 30 s slot, and never across a calendar boundary', () => {
    expect(key({}, at('2024-01-01T10:00:00.000Z'))).toBe(key({}, at('2024-01-01T10:00:29.999Z')));
    expect(key({}, at('2024-01-01T10:00:29.999Z'))).not.toBe(key({}, at('2024-01-01T10:00:30.000Z')));
    const sunday = at('2024-01-07T23:59:59.999Z');
    const monday = at('2024-01-08T00:00:00.000Z');
    expect(key({ quickRange: 'lastWeek' }, sunday)).not.toBe(key({ quickRange: 'lastWeek' }, monday));
    // A fixed window does not move, so its key does not depend on the clock.
    expect(key({ from: '1704067200', to: '1704070800' }, sunday)).toBe(
      key({ from: '1704067200', to: '1704070800' }, monday),
    );
  });
});

describe('analytics cache', () => {
  const answer = (from: string): AnalyticsAnswer => ({
    from,
    to: from,
    series: [],
    pagination: { page: 1, limit: 10 },
    metadata: {},
  });
  const log = createLogger({ level: 'silent' });

  it('serves a stored answer until its ttl ends', async () => {
    const store = createSqliteStateStore({ path: ':memory:' });
    const cache = createAnalyticsCache(store, { ttlMs: 200, log });
    let computed = 0;
    const compute = async () => answer(`run ${++computed}`);
    expect((await cache.answer('k', compute)).from).toBe('run 1');
    expect((await cache.answer('k', compute)).from).toBe('run 1');
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect((await cache.answer('k', compute)).from).toBe('run 2');
    await store.close();
  });

  it('computes once for requests of one key that arrive while it is computing; a failure is not kept', async () => {
    const store = createSqliteStateStore({ path: ':memory:' });
    const cache = createAnalyticsCache(store, { ttlMs: 30_000, log });
    let computed = 0;
    const slow = async () => {
      computed++;
      await new Promise((resolve) => setTimeout(resolve, 50));
      return answer(`run ${computed}`);
    };
    const answers = await Promise.all(Array.from({ length: 10 }, () => cache.answer('k', slow)));
    expect(computed).toBe(1);
    expect(answers.map((a) => a.from)).toEqual(Array.from({ length: 10 }, () => 'run 1'));
    // Another key is not held up by, nor shares, the first one's work.
    expect((await cache.answer('other', slow)).from).toBe('run 2');
    const failing = async () => {
      computed++;
      await new Promise((resolve) => setTimeout(resolve, 10));
      throw new Error('engine down');
    };
    const failed = await Promise.allSettled([cache.answer('bad', failing), cache.answer('bad', failing)]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(computed).toBe(3);
    expect((await cache.answer('bad', slow)).from).toBe('run 4');
    await store.close();
  });

  it('writes an answer after it was handed back; requests meanwhile join it; its ttl counts from when it was asked', async () => {
    const store = createSqliteStateStore({ path: ':memory:' });
    const cache = createAnalyticsCache(store, { ttlMs: 300, log });
    let computed = 0;
    const slow = async () => {
      computed++;
      await new Promise((resolve) => setTimeout(resolve, 200));
      return answer(`run ${computed}`);
    };
    const started = Date.now();
    expect((await cache.answer('k', slow)).from).toBe('run 1');
    // The reply goes first: the store does not hold it yet, and a request now joins instead of computing.
    expect(await store.get('k')).toBeNull();
    expect((await cache.answer('k', slow)).from).toBe('run 1');
    expect(computed).toBe(1);
    await vi.waitFor(async () => expect(await store.get('k')).not.toBeNull());
    // Asked 200+ ms ago with a 300 ms ttl: it is gone 300 ms after it was asked, not 300 ms after it was written.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 350 - Date.now())));
    expect(await store.get('k')).toBeNull();
    expect((await cache.answer('k', slow)).from).toBe('run 2');
    await store.close();
  });

  it('reads another key in the same round trip and hands its value to compute on a miss', async () => {
    const store = createSqliteStateStore({ path: ':memory:' });
    await store.set('token', 't1');
    const reads = { get: 0, getMany: 0 };
    const counted = Object.assign(Object.create(store) as typeof store, {
      get: (k: string) => (reads.get++, store.get(k)),
      getMany: (keys: string[]) => (reads.getMany++, store.getMany(keys)),
    });
    const cache = createAnalyticsCache(counted, { ttlMs: 30_000, log });
    const seen: (string | null | undefined)[] = [];
    const compute = async (also: string | null | undefined) => (seen.push(also), answer(`run ${seen.length}`));
    expect((await cache.answer('k', compute, 'token')).from).toBe('run 1');
    expect((await cache.answer('other', compute, 'absent')).from).toBe('run 2');
    expect((await cache.answer('third', compute)).from).toBe('run 3');
    expect(seen).toEqual(['t1', null, undefined]);
    expect(reads).toEqual({ get: 1, getMany: 2 });
    await vi.waitFor(async () => expect(await store.get('k')).not.toBeNull());
    expect((await cache.answer('k', compute, 'token')).from).toBe('run 1');
    expect(seen).toHaveLength(3);
    await store.close();
  });

  it('can be turned off, and refuses a ttl above 30 s', async () => {
    const store = createSqliteStateStore({ path: ':memory:' });
    const cache = createAnalyticsCache(store, { ttlMs: 0, log });
    let computed = 0;
    await cache.answer('k', async () => answer(String(++computed)));
    await cache.answer('k', async () => answer(String(++computed)));
    expect(computed).toBe(2);
    expect(() => createAnalyticsCache(store, { ttlMs: 30_001, log })).toThrow(/^cacheTtlMs: /);
    await store.close();
  });
});
