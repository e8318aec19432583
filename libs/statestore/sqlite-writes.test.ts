import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InternalError, UnavailableError } from '#core';
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

/** Applies the same random batches through both writers; they must agree on every outcome and on the data. */
async function differential(
  fast: StateStore,
  reference: StateStore,
  writeFast: (ops: WriteOp[]) => Promise<void>,
  rounds: number,
): Promise<void> {
  const next = random(16);
  let rejected = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      const ops = Array.from({ length: 1 + Math.floor(next() * 8) }, () => randomOp(next));
      const outcome = async (store: StateStore) =>
        (store === fast ? writeFast(ops) : store.write(ops)).then(
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
    expect(rejected).toBeGreaterThan(rounds / 15);
    expect(rejected).toBeLessThan(rounds * 0.9);
  } finally {
    await fast.close();
    await reference.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), 'vigil-statestore-offthread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sqlite state store: write paths against the reference path', () => {
  it('per-transaction type cache: random batches give the same data and the same rejections', async () => {
    const fast = createSqliteStateStore({ path: ':memory:' });
    const reference = createSqliteStateStore({ path: ':memory:', typeCache: false });
    await differential(fast, reference, (ops) => fast.write(ops), 1500);
  });

  it('writes on the write thread: the same data (read on the main connection) and the same rejections', async () => {
    const fast = createSqliteStateStore({ path: join(dir, 'offthread.sqlite') });
    const reference = createSqliteStateStore({ path: join(dir, 'reference.sqlite'), typeCache: false });
    expect(fast.writeOffThread).toBeTypeOf('function');
    await differential(fast, reference, (ops) => fast.writeOffThread!(ops), 400);
  });

  it('a rejection from the write thread keeps its error type, and a closed store refuses', async () => {
    const store = createSqliteStateStore({ path: join(dir, 'errors.sqlite') });
    await store.writeOffThread!([{ op: 'set', key: 'k', value: 'v' }]);
    const wrong = await store.writeOffThread!([{ op: 'zadd', key: 'k', member: 'm', score: 1 }]).catch((e) => e);
    expect(wrong).toBeInstanceOf(InternalError);
    expect(await store.zrange('k', 0, -1)).toEqual([]);
    await store.close();
    await expect(store.writeOffThread!([{ op: 'set', key: 'k', value: 'w' }])).rejects.toBeInstanceOf(UnavailableError);
  });

  it('claimDue on the write thread claims what the in-thread claimDue claims, with the same leases', async () => {
    const fast = createSqliteStateStore({ path: join(dir, 'claim.sqlite') });
    const reference = createSqliteStateStore({ path: join(dir, 'claim-reference.sqlite') });
    const next = random(7);
    const ops: WriteOp[] = Array.from({ length: 60 }, (_, i) => ({
      op: 'zadd',
      key: 'queue',
      member: `d${i}`,
      score: Math.floor(next() * 100),
    }));
    try {
      await fast.write(ops);
      await reference.write(ops);
      for (const [now, limit] of [
        [20, 5],
        [50, 10],
        [50, 0],
        [120, 100],
        [130, 3],
      ] as const) {
        expect(await fast.claimDueOffThread!('queue', now, 1000, limit)).toEqual(
          await reference.claimDue('queue', now, 1000, limit),
        );
        expect(await fast.zrange('queue', 0, -1)).toEqual(await reference.zrange('queue', 0, -1));
      }
    } finally {
      await fast.close();
      await reference.close();
    }
  });
});
