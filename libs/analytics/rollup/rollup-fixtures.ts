import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Logger } from '#core';
import { checkResultSchema, type CheckResult } from '#domain';
import { seeded, services } from '#test-support';
import { chdbConnection, createChdbAnalyticsStore } from '../chdb-engine.ts';
import { CLICKHOUSE_MIGRATIONS_TABLE } from '../clickhouse-schema.ts';
import { createClickHouseAnalyticsStore } from '../clickhouse.ts';
import { createDuckDbAnalyticsStore } from '../duckdb.ts';
import type { AnalyticsStore } from '../port.ts';
import type { AnalyticsAnswer } from '../reader/reader.ts';
import { SKETCH_ALPHA } from './sketch.ts';

/** Test data and comparisons shared by the rollup suites (hourly and daily). */
export const LOCATIONS = ['eu-west-1', 'us-east-1', 'ap-south-1', 'sa-east-1'];

/** The metrics the rollup suites compare: every aggregate kind the rollups answer. */
export const ROLLUP_METRICS = [
  'responseTime_avg',
  'responseTime_min',
  'responseTime_max',
  'responseTime_sum',
  'responseTime_stddev',
  'responseTime_median',
  'responseTime_p90',
  'responseTime_p95',
  'responseTime_p99',
  'dns_avg',
  'dns_p95',
  'firstByte_max',
  'availability',
  'retries',
];

/** The three engines the rollup suites run on, each opened on its own database (DuckDB: a file in `dir`). */
export function rollupEngines(options: {
  dir: string;
  file: string;
  database: string;
  log: Logger;
  clock: () => number;
}) {
  const { dir, file, database, log, clock } = options;
  // `write` runs DDL or DML outside the store (its ClickHouse queries are read-only), to set up a
  // database as older code left it.
  return [
    {
      name: 'duckdb',
      open: (): AnalyticsStore => createDuckDbAnalyticsStore({ path: join(dir, file), log, clock }),
      write: async (store: AnalyticsStore, sql: string) => void (await store.query(sql)),
    },
    {
      name: 'clickhouse 18.16',
      open: (): AnalyticsStore =>
        createClickHouseAnalyticsStore({ url: services().CLICKHOUSE_URL, database, log, clock }),
      write: async (_store: AnalyticsStore, sql: string) => {
        const url = new URL(services().CLICKHOUSE_URL);
        url.searchParams.set('database', database);
        const response = await fetch(url, { method: 'POST', body: sql });
        if (!response.ok) throw new Error(`ClickHouse: ${await response.text()}`);
      },
    },
    {
      name: 'clickhouse 26 (chdb)',
      open: (): AnalyticsStore => createChdbAnalyticsStore({ database, log, clock }),
      write: async (_store: AnalyticsStore, sql: string) =>
        void (await chdbConnection(database).command({ query: sql })),
    },
  ];
}

/** Makes the store forget it applied migration `version` (and any after it), as a process that stopped before recording it. */
export async function forgetMigration(
  store: AnalyticsStore,
  write: (store: AnalyticsStore, sql: string) => Promise<void>,
  version: number,
): Promise<void> {
  if (store.dialect === 'duckdb') return write(store, `DELETE FROM schema_migrations WHERE version >= ${version}`);
  // ClickHouse 18.16 deletes rows only by an asynchronous mutation: rewrite the record table.
  const kept = await store.query<{ version: number; name: string; applied_at: string }>(
    `SELECT DISTINCT version, name, toString(applied_at) AS applied_at FROM schema_migrations WHERE version < ${version}`,
  );
  await write(store, 'DROP TABLE schema_migrations');
  await write(store, CLICKHOUSE_MIGRATIONS_TABLE);
  for (const row of kept)
    await write(store, `INSERT INTO schema_migrations VALUES (${row.version}, '${row.name}', '${row.applied_at}')`);
}

/** `count` API results of one check spread evenly over [from, from + span), 5% failing. */
export function results(accountId: string, checkId: string, count: number, from: number, span: number): CheckResult[] {
  const rand = seeded(7);
  return Array.from({ length: count }, (_, i) => {
    const failed = rand() < 0.05;
    return checkResultSchema.parse({
      id: randomUUID(),
      accountId,
      checkId,
      checkType: 'API',
      startedAt: new Date(from + Math.floor((i * span) / count)).toISOString(),
      runLocation: LOCATIONS[i % LOCATIONS.length],
      hasFailures: failed,
      responseTime: Math.round((20 + -Math.log(1 - rand()) * 180) * 10) / 10,
      attempts: failed ? 2 : 1,
      statusCode: failed ? 500 : 200,
      // dns is missing on some runs: NULL samples must not count.
      timings: rand() < 0.8 ? { dns: rand() * 40, firstByte: rand() * 300 } : { firstByte: rand() * 300 },
    });
  });
}

const PERCENTILE = /_(p50|p90|p95|p99|median)$/;

/** Every value that differs beyond tolerance: percentiles by the sketch's bound, the rest by rounding. */
export function differences(actual: AnalyticsAnswer, exact: AnalyticsAnswer): string[] {
  const out: string[] = [];
  expect(actual.series.length).toBe(exact.series.length);
  exact.series.forEach((entry, s) => {
    entry.data.forEach((point, p) => {
      for (const [name, want] of Object.entries(point)) {
        const got = actual.series[s]!.data[p]![name];
        if (typeof want !== 'number' || typeof got !== 'number') {
          if (got !== want) out.push(`${s}/${p}/${name}: ${String(got)} ≠ ${String(want)}`);
          continue;
        }
        const bound = PERCENTILE.test(name) ? SKETCH_ALPHA : 1e-9;
        if (Math.abs(got - want) > bound * Math.max(Math.abs(want), 1e-9))
          out.push(`${s}/${p}/${name}: ${got} vs ${want}`);
      }
    });
  });
  return out;
}
