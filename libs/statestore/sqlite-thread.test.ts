import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Sqlite } from '#core';
import { stateStoreContract } from './contract.ts';
import { createSqliteStateStore, type SqliteStateStore } from './sqlite.ts';

// Once the SQLite store's write thread runs, every write goes through it: the same contract as
// on the main connection, and a write that waits for the lock no longer stops the event loop.

const dir = mkdtempSync(join(tmpdir(), 'vigil-statestore-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withThread(path: string): Promise<SqliteStateStore> {
  const store = createSqliteStateStore({ path });
  await store.writeOffThread!([{ op: 'set', key: 'thread:started', value: '1' }]);
  return store;
}

const shared = join(dir, 'contract.sqlite');
stateStoreContract('sqlite file, writes on the write thread', () => withThread(shared), { sharesData: true });

describe('sqlite state store with its write thread running', () => {
  it('applies writes made without waiting in the order they were made, whatever the method', async () => {
    const store = await withThread(join(dir, 'order.sqlite'));
    try {
      const writes = [
        store.set('k', 'a'),
        store.write([{ op: 'set', key: 'k', value: 'b' }]),
        store.del('k'),
        store.incr('k', 5),
        store.write([{ op: 'set', key: 'k', value: 'c' }]),
        store.setIfAbsent('k', 'd'),
        store.incr('n', 1),
        store.write([{ op: 'set', key: 'n', value: '10' }]),
        store.incr('n', 1),
      ];
      const results = await Promise.all(writes);
      expect(results[3]).toBe(5);
      expect(results[5]).toBe(false);
      expect(results[8]).toBe(11);
      expect(await store.get('k')).toBe('c');
      expect(await store.get('n')).toBe('11');
    } finally {
      await store.close();
    }
  });

  it('keeps the event loop turning while a write waits for another connection’s lock', async () => {
    const path = join(dir, 'locked.sqlite');
    const store = await withThread(path);
    const other = new Sqlite(path);
    try {
      other.pragma('busy_timeout = 5000');
      other.exec('BEGIN IMMEDIATE');
      let turns = 0;
      let waiting = true;
      const written = Promise.all([
        store.set('lease', 'me', { ttlMs: 60_000 }),
        store.setIfAbsent('once', 'x'),
        store.incr('count', 2),
        store.write([{ op: 'zadd', key: 'queue', member: 'd1', score: 5 }]),
        store.claimDue('queue', 10, 1000, 10),
      ]).finally(() => (waiting = false));
      // On the main connection the first write would sleep in SQLite's busy handler for the
      // whole time the lock is held, and no turn of the loop would happen.
      const until = Date.now() + 200;
      while (Date.now() < until) await new Promise((resolve) => setImmediate(resolve)).then(() => turns++);
      expect(waiting).toBe(true);
      other.exec('COMMIT');
      const [, once, count, , claimed] = await written;
      expect(turns).toBeGreaterThan(20);
      expect(once).toBe(true);
      expect(count).toBe(2);
      expect(claimed).toEqual([{ member: 'd1', score: 5 }]);
      expect(await store.get('lease')).toBe('me');
      expect(await store.ttlMs('lease')).toBeGreaterThan(50_000);
      expect(await store.zscore('queue', 'd1')).toBeGreaterThan(1000);
    } finally {
      other.close();
      await store.close();
    }
  });
});
