import { describe, expect, it } from 'vitest';
import type { StateStore, WriteOp } from './port.ts';
import { createSqliteStateStore } from './sqlite.ts';

// The write path skips type checks a transaction has made redundant (typeCache). Random batches
// over a few keys, mixing every kind of op (so wrong-type rejections and emptied keys happen
// often), must leave the same data and fail the same batches as the reference path.

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function randomOp(next: () => number): WriteOp {
  const key = `k${Math.floor(next() * 4)}`;
  const member = `m${Math.floor(next() * 3)}`;
  const value = `v${Math.floor(next() * 100)}`;
  switch (Math.floor(next() * 7)) {
    case 0:
      return { op: 'set', key, value };
    case 1:
      return { op: 'del', key };
    case 2:
      return { op: 'hset', key, field: member, value };
    case 3:
      return { op: 'hdel', key, field: member };
    case 4:
    case 5:
      return { op: 'zadd', key, member, score: Math.floor(next() * 10) };
    default:
      return { op: 'zrem', key, member };
  }
}

async function snapshot(store: StateStore): Promise<unknown> {
  const keys = ['k0', 'k1', 'k2', 'k3'];
  return Promise.all(
    keys.map(async (key) => ({
      string: await store.get(key),
      hash: await store.hgetall(key),
      zset: await store.zrange(key, 0, -1),
    })),
  );
}

describe('sqlite state store: per-transaction type cache against the reference path', () => {
  it('random batches give the same data and the same rejections', async () => {
    const fast = createSqliteStateStore({ path: ':memory:' });
    const reference = createSqliteStateStore({ path: ':memory:', typeCache: false });
    const next = random(16);
    let rejected = 0;
    try {
      for (let round = 0; round < 1500; round++) {
        const ops = Array.from({ length: 1 + Math.floor(next() * 8) }, () => randomOp(next));
        const outcome = async (store: StateStore) =>
          store.write(ops).then(
            () => 'ok',
            (error: Error) => error.message,
          );
        const [a, b] = [await outcome(fast), await outcome(reference)];
        expect(a, JSON.stringify(ops)).toBe(b);
        if (a !== 'ok') rejected++;
        if (round % 50 === 0) expect(await snapshot(fast)).toEqual(await snapshot(reference));
      }
      expect(await snapshot(fast)).toEqual(await snapshot(reference));
      // Both outcomes were exercised.
      expect(rejected).toBeGreaterThan(100);
      expect(rejected).toBeLessThan(1400);
    } finally {
      await fast.close();
      await reference.close();
    }
  });
});
