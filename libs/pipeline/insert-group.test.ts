import { afterEach, describe, expect, it } from 'vitest';
import { createDuckDbAnalyticsStore, sampleCheckResult } from '#analytics';
import { createLogger } from '#core';
import type { CheckResult } from '#domain';
import { createInsertGroup } from './insert-group.ts';

const log = createLogger({ level: 'silent' });
const stores: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function recordedStore(failFirst = 0) {
  const store = createDuckDbAnalyticsStore({ path: ':memory:', log });
  stores.push(store);
  await store.migrate();
  const inserts: number[] = [];
  let failures = failFirst;
  const insert = async (results: readonly CheckResult[]) => {
    inserts.push(results.length);
    if (failures-- > 0) throw new Error('analytics store down');
    await store.insert(results);
  };
  return { store, inserts, insert };
}

const batch = (accountId: string, n: number) => Array.from({ length: n }, () => sampleCheckResult({ accountId }));

describe('insert group (group commit of the ingestor)', () => {
  it('stores calls made while an insert is in flight together, and resolves each once its rows are stored', async () => {
    const { store, inserts, insert } = await recordedStore();
    const group = createInsertGroup(insert);
    const accountId = crypto.randomUUID();
    const calls = [batch(accountId, 3), batch(accountId, 2), batch(accountId, 4), batch(accountId, 1)];
    const storedAtResolve: number[] = [];
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    await Promise.all(
      calls.map(async (results, i) => {
        // The first call alone, the others once its insert is in flight.
        if (i > 0) await turn();
        await group(results).then(async () => {
          const stored = await store.countResults({ accountId });
          storedAtResolve.push(stored);
          // Every row of this call is in the store when it resolves.
          for (const result of results)
            expect(await store.query(`SELECT id FROM check_results WHERE id = '${result.id}'`)).toHaveLength(1);
        });
      }),
    );
    // The first call goes alone; the three that arrived meanwhile share the next insert.
    expect(inserts).toEqual([3, 7]);
    expect(await store.countResults({ accountId })).toBe(10);
    expect(storedAtResolve.every((n) => n >= 3)).toBe(true);
  });

  it('stores calls made in the same turn of the event loop in one insert', async () => {
    const { store, inserts, insert } = await recordedStore();
    const group = createInsertGroup(insert);
    const accountId = crypto.randomUUID();
    await Promise.all([3, 2, 4].map((n) => group(batch(accountId, n))));
    expect(inserts).toEqual([9]);
    expect(await store.countResults({ accountId })).toBe(9);
  });

  it('rejects every call of a failed insert, stores none of it, and goes on with the next calls', async () => {
    const { store, inserts, insert } = await recordedStore(1);
    const group = createInsertGroup(insert);
    const accountId = crypto.randomUUID();
    const outcomes = await Promise.allSettled([
      group(batch(accountId, 2)),
      group(batch(accountId, 3)),
      group(batch(accountId, 4)),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(inserts).toEqual([9]);
    expect(await store.countResults({ accountId })).toBe(0);
    // The bus redelivers: the same calls again succeed.
    await group(batch(accountId, 5));
    expect(await store.countResults({ accountId })).toBe(5);
  });

  it('never splits a call, and keeps a group within maxResults unless one call alone is larger', async () => {
    const { inserts, insert } = await recordedStore();
    const group = createInsertGroup(insert, { maxResults: 5 });
    const accountId = crypto.randomUUID();
    await Promise.all([1, 3, 2, 6, 2, 2].map((n) => group(batch(accountId, n))));
    expect(inserts).toEqual([4, 2, 6, 4]);
  });

  it('runs up to maxInFlight inserts at once, each call in exactly one of them', async () => {
    const { store, insert } = await recordedStore();
    let running = 0;
    let peak = 0;
    const sizes: number[] = [];
    const tracked = async (results: readonly CheckResult[]) => {
      running += 1;
      peak = Math.max(peak, running);
      sizes.push(results.length);
      try {
        await insert(results);
      } finally {
        running -= 1;
      }
    };
    const group = createInsertGroup(tracked, { maxResults: 5, maxInFlight: 2 });
    const accountId = crypto.randomUUID();
    await Promise.all([3, 2, 4, 1, 5, 2].map((n) => group(batch(accountId, n))));
    expect(peak).toBe(2);
    expect(sizes).toEqual([5, 5, 5, 2]);
    expect(await store.countResults({ accountId })).toBe(17);
  });

  it('resolves an empty call at once without an insert', async () => {
    const { inserts, insert } = await recordedStore();
    await createInsertGroup(insert)([]);
    expect(inserts).toEqual([]);
  });
});
