import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { analyticsStoreContract } from './contract.ts';
import { duckDbMigrations } from './duckdb-schema.ts';
import { createAnalyticsStore, createDuckDbAnalyticsStore, sampleCheckResult } from './index.ts';

const dir = mkdtempSync(join(tmpdir(), 'vigil-analytics-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const log = createLogger({ level: 'silent' });

analyticsStoreContract('duckdb file', async () =>
  createDuckDbAnalyticsStore({ path: join(dir, 'contract.duckdb'), log }),
);

describe('duckdb analytics store', () => {
  it('keeps results and de-duplication across close and reopen', async () => {
    const path = join(dir, 'reopen.duckdb');
    const result = sampleCheckResult();
    const first = createDuckDbAnalyticsStore({ path, log });
    await first.migrate();
    await first.insert([result]);
    await first.close();

    const second = createDuckDbAnalyticsStore({ path, log });
    await second.migrate();
    await second.insert([result]);
    expect(await second.countResults({ accountId: result.accountId })).toBe(1);
    await second.close();
  });

  it('is what createAnalyticsStore picks without a ClickHouse URL, in <dataDir>/analytics.duckdb', async () => {
    const dataDir = join(dir, 'nested', 'data');
    const store = createAnalyticsStore({ dataDir, log });
    expect(store.dialect).toBe('duckdb');
    await store.migrate();
    await store.close();
    const reopened = createDuckDbAnalyticsStore({ path: join(dataDir, 'analytics.duckdb'), log });
    expect(await reopened.query('SELECT version FROM schema_migrations ORDER BY version')).toEqual(
      duckDbMigrations.map((migration) => ({ version: migration.version })),
    );
    await reopened.close();
  });

  it('serialises concurrent inserts and reads on its one connection', async () => {
    const store = createDuckDbAnalyticsStore({ path: ':memory:', log });
    await store.migrate();
    const result = sampleCheckResult();
    const writes = Array.from({ length: 20 }, (_, n) =>
      store.insert(n % 2 === 0 ? [result] : [sampleCheckResult({ accountId: result.accountId })]),
    );
    const reads = Array.from({ length: 5 }, () => store.countResults({ accountId: result.accountId }));
    await Promise.all([...writes, ...reads]);
    expect(await store.countResults({ accountId: result.accountId })).toBe(11);
    await store.close();
  });
});
