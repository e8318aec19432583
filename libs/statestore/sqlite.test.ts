import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, Sqlite } from '#core';
import { stateStoreContract } from './contract.ts';
import { createSqliteStateStore, createStateStore } from './index.ts';

const dir = mkdtempSync(join(tmpdir(), 'vigil-statestore-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

stateStoreContract('sqlite :memory:', async () => createSqliteStateStore({ path: ':memory:' }));

// Every factory call opens another connection on the same file, so races cross connections.
const shared = join(dir, 'contract.sqlite');
stateStoreContract('sqlite file', async () => createSqliteStateStore({ path: shared }), { sharesData: true });

describe('sqlite state store', () => {
  it('keeps data in a file across close and reopen', async () => {
    const path = join(dir, 'reopen.sqlite');
    const first = createSqliteStateStore({ path });
    await first.write([
      { op: 'set', key: 'checkpoint', value: '42' },
      { op: 'hset', key: 'model', field: 'a', value: '1' },
      { op: 'zadd', key: 'retries', member: 'd1', score: 7 },
    ]);
    await first.set('temp', 'x', { ttlMs: 60_000 });
    await first.close();

    const second = createSqliteStateStore({ path });
    expect(await second.get('checkpoint')).toBe('42');
    expect(await second.hgetall('model')).toEqual({ a: '1' });
    expect(await second.zrange('retries', 0, -1)).toEqual([{ member: 'd1', score: 7 }]);
    expect(await second.ttlMs('temp')).toBeGreaterThan(50_000);
    await second.close();
  });

  it('purges expired keys in the background', async () => {
    const path = join(dir, 'purge.sqlite');
    const store = createSqliteStateStore({ path, purgeIntervalMs: 50 });
    await store.set('short', 'x', { ttlMs: 20 });
    await store.set('long', 'y');
    const raw = new Sqlite(path, { readonly: true });
    try {
      const count = () => (raw.prepare('SELECT count(*) AS n FROM kv').get() as { n: number }).n;
      expect(count()).toBe(2);
      const deadline = Date.now() + 3000;
      while (count() > 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(count()).toBe(1);
    } finally {
      raw.close();
      await store.close();
    }
  });

  it('createStateStore falls back to a SQLite file in the data directory', async () => {
    const dataDir = join(dir, 'nested', 'data');
    const store = createStateStore({ dataDir, log: createLogger({ level: 'silent' }) });
    await store.set('k', 'v');
    await store.close();
    const reopened = createSqliteStateStore({ path: join(dataDir, 'state.sqlite') });
    expect(await reopened.get('k')).toBe('v');
    await reopened.close();
  });
});
