import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import type { CheckResult } from '#domain';
import { insertResultRows, insertTarget } from './duckdb-insert.ts';
import { duckDbMigrations } from './duckdb-schema.ts';
import { createDuckDbAnalyticsStore, sampleCheckResult, toResultRow } from './index.ts';

const log = createLogger({ level: 'silent' });
const opened: DuckDBInstance[] = [];
afterEach(() => {
  for (const instance of opened.splice(0)) instance.closeSync();
});

async function freshTable(): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:');
  opened.push(instance);
  const connection = await instance.connect();
  for (const migration of duckDbMigrations)
    for (const statement of migration.statements) await connection.run(statement);
  return connection;
}

async function everyRow(connection: DuckDBConnection): Promise<unknown[]> {
  const reader = await connection.runAndReadAll('SELECT * FROM check_results ORDER BY id');
  return reader.getRowObjectsJson();
}

/** Every shape the row mapping handles: each check type's optional fields, pages, assertions, odd text. */
function mixedBatch(): CheckResult[] {
  const accountId = crypto.randomUUID();
  return [
    sampleCheckResult({ accountId }),
    sampleCheckResult({
      accountId,
      statusCode: 503,
      statusText: "it's \u00e9\u0000down",
      hasFailures: true,
      isDegraded: true,
      attempts: 3,
      errorMessage: 'timeout\nafter 10 s',
      timings: { wait: 1, dns: 2, tcp: 3, firstByte: 4, download: 5, total: 15.5, connection: 6, data: 7 },
      ssl: { daysRemaining: -2, domain: 'example.com' },
      startedAt: '2025-02-03T04:05:06.789Z',
    }),
    sampleCheckResult({ accountId, checkType: 'HEARTBEAT', heartbeat: { status: 'GRACE' }, responseTime: 0 }),
    sampleCheckResult({ accountId, checkType: 'TCP', runLocation: 'us-east-1', timings: { connection: 12 } }),
    sampleCheckResult({
      accountId,
      checkType: 'BROWSER',
      pages: [
        { index: 1, url: 'https://example.com/b', LCP: 900, consoleErrors: 1 },
        { index: 0, url: 'https://example.com/', TTFB: 80, FCP: 300, CLS: 0.1, TBT: 40, networkErrors: 2 },
      ],
    }),
    sampleCheckResult({
      accountId,
      assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', actual: '503', passed: false }],
    }),
  ];
}

describe('DuckDB insert paths', () => {
  it('stores the same rows appended directly as staged with INSERT OR IGNORE (differential)', async () => {
    const batch = mixedBatch().map(toResultRow);
    const direct = await freshTable();
    const staged = await freshTable();
    expect(await insertResultRows(direct, await insertTarget(direct), batch)).toBe('direct');
    expect(await insertResultRows(staged, await insertTarget(staged), batch, { direct: false })).toBe('staged');
    const rows = await everyRow(direct);
    expect(rows).toHaveLength(batch.length);
    expect(rows).toEqual(await everyRow(staged));
  });

  it('falls back to the staged path when an id is already stored, keeps it once and stores the rest', async () => {
    const connection = await freshTable();
    const target = await insertTarget(connection);
    const first = mixedBatch().map(toResultRow);
    expect(await insertResultRows(connection, target, first.slice(0, 2))).toBe('direct');
    // Redelivered rows in the middle of a larger batch: the direct append must leave nothing behind.
    const second = [...mixedBatch().map(toResultRow), first[1]!, ...mixedBatch().map(toResultRow), first[0]!];
    expect(await insertResultRows(connection, target, second)).toBe('staged');
    const ids = (await everyRow(connection)).map((row) => (row as { id: string }).id);
    expect(ids).toHaveLength(2 + second.length - 2);
    expect(new Set(ids).size).toBe(ids.length);
    // The next fresh batch takes the direct path again.
    expect(await insertResultRows(connection, target, mixedBatch().map(toResultRow))).toBe('direct');
    expect(await everyRow(connection)).toHaveLength(2 + second.length - 2 + 6);
  });

  it('counts a batch sent twice once, through the store, and reads the same rows as the first insert', async () => {
    const store = createDuckDbAnalyticsStore({ path: ':memory:', log });
    await store.migrate();
    const batch = mixedBatch();
    await store.insert(batch);
    const before = await store.query('SELECT * FROM check_results ORDER BY id');
    await store.insert([...batch].reverse());
    await store.insert([sampleCheckResult({ accountId: batch[0]!.accountId }), batch[2]!]);
    expect(await store.countResults({ accountId: batch[0]!.accountId })).toBe(batch.length + 1);
    const after = await store.query<{ id: string }>('SELECT * FROM check_results ORDER BY id');
    expect(after.filter((row) => batch.some((result) => result.id === row.id))).toEqual(before);
    await store.close();
  });
});
