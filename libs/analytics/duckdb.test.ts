import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { analyticsStoreContract } from './contract.ts';
import { duckDbMigrations } from './duckdb-schema.ts';
import { createAnalyticsStore, createDuckDbAnalyticsStore, sampleCheckResult } from './index.ts';
import type { AnalyticsStore } from './port.ts';

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

  it('writes row groups of 16,384 rows, on every open of the file', async () => {
    const path = join(dir, 'row-groups.duckdb');
    const accountId = sampleCheckResult().accountId;
    const batch = (n: number) => Array.from({ length: n }, () => sampleCheckResult({ accountId }));
    const groups = async (store: AnalyticsStore) =>
      (
        await store.query<{ rows: number }>(
          "SELECT max(count) AS rows FROM pragma_storage_info('check_results') GROUP BY row_group_id ORDER BY row_group_id",
        )
      ).map((group) => group.rows);
    const first = createDuckDbAnalyticsStore({ path, log });
    await first.migrate();
    await first.insert(batch(40_000));
    await first.cluster!();
    expect(await groups(first)).toEqual([16_384, 16_384, 7_232]);
    await first.close();

    const second = createDuckDbAnalyticsStore({ path, log });
    await second.insert(batch(20_000));
    const after = await groups(second);
    expect(Math.max(...after)).toBe(16_384);
    expect(after.reduce((sum, rows) => sum + rows, 0)).toBe(60_000);
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
