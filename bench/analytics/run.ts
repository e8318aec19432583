/**
 * Analytics read latency: one API check with ≥ 1M results over 30 days, on ClickHouse and DuckDB,
 * queried through the reader (the code the endpoint runs, cache aside). Prints p50/p99 per query
 * shape and engine, and how ClickHouse's built-in quantile functions compare with the exact
 * interpolation the reader uses. Writes JSON to bench/results/.
 *
 *   npx tsx bench/analytics/run.ts [--rows 1000000] [--iterations 40] [--keep]
 *
 * CLICKHOUSE_URL (default http://127.0.0.1:8123) must point at a running server. --keep leaves the
 * data (ClickHouse database vigil_bench_analytics, DuckDB file in the temp dir) for the next run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Table from 'cli-table3';
import {
  createAnalyticsReader,
  createClickHouseAnalyticsStore,
  createDuckDbAnalyticsStore,
  parseAnalyticsParams,
  type AnalyticsStore,
} from '#analytics';
import { createLogger } from '#core';
import type { CheckResult } from '#domain';
import { seeded } from '../support/stats.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    iterations: { type: 'string', default: '40' },
    keep: { type: 'boolean', default: false },
  },
});
const ROWS = Number(values.rows);
const ITERATIONS = Number(values.iterations);
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
const DATABASE = 'vigil_bench_analytics';
const DUCKDB_PATH = join(tmpdir(), 'vigil-bench-analytics.duckdb');
const NOW = new Date('2024-03-01T00:00:00Z');
const ACCOUNT = '0b3c6a9e-5f55-4c1e-9a0e-000000000001';
const CHECK = '0b3c6a9e-5f55-4c1e-9a0e-000000000002';
const log = createLogger({ level: 'silent' });

/** ROWS results spread evenly over the 30 days before NOW; built directly (already valid) for speed. */
function* batches(size: number): Generator<CheckResult[]> {
  const random = seeded(7);
  const span = 30 * 86_400_000;
  const step = span / ROWS;
  const locations = ['eu-west-1', 'us-east-1', 'ap-south-1', 'sa-east-1'];
  for (let start = 0; start < ROWS; start += size) {
    const batch: CheckResult[] = [];
    for (let i = start; i < Math.min(ROWS, start + size); i++) {
      const r = random();
      batch.push({
        id: `${CHECK.slice(0, 24)}${i.toString(16).padStart(12, '0')}`,
        accountId: ACCOUNT,
        checkId: CHECK,
        checkType: 'API',
        startedAt: new Date(NOW.getTime() - span + Math.floor(i * step)).toISOString(),
        runLocation: locations[i % locations.length]!,
        hasFailures: r < 0.02,
        isDegraded: false,
        responseTime: Math.round((50 + -Math.log(1 - random()) * 150) * 10) / 10,
        attempts: r < 0.02 ? 2 : 1,
        statusCode: r < 0.02 ? 500 : 200,
        timings: {
          dns: random() * 20,
          tcp: random() * 30,
          firstByte: random() * 200,
          download: random() * 50,
          wait: random() * 5,
        },
      });
    }
    yield batch;
  }
}

async function fill(store: AnalyticsStore): Promise<number> {
  await store.migrate();
  const have = await store.countResults({ accountId: ACCOUNT, checkId: CHECK });
  if (have >= ROWS) return 0;
  const started = performance.now();
  for (const batch of batches(50_000)) await store.insert(batch);
  return (performance.now() - started) / 1000;
}

const shapes: { name: string; params: Record<string, string> }[] = [
  {
    name: '30d, 5 metrics, ungrouped',
    params: {
      quickRange: 'last30Days',
      metrics: 'responseTime_avg,responseTime_p50,responseTime_p95,responseTime_p99,availability',
    },
  },
  {
    name: '30d, all 10 suffixes',
    params: {
      quickRange: 'last30Days',
      metrics:
        'responseTime_avg,responseTime_max,responseTime_median,responseTime_min,responseTime_p50,responseTime_p90,responseTime_p95,responseTime_p99,responseTime_stddev,responseTime_sum',
    },
  },
  {
    name: '30d, hourly buckets (720)',
    params: {
      quickRange: 'last30Days',
      aggregationInterval: '60',
      metrics: 'responseTime_avg,responseTime_p95,availability',
    },
  },
  {
    name: '30d, by location, daily',
    params: {
      quickRange: 'last30Days',
      aggregationInterval: '1440',
      groupBy: 'runLocation',
      metrics: 'responseTime_p99,dns_avg,availability,retries',
    },
  },
  {
    name: '30d, raw runs, page 50',
    params: { quickRange: 'last30Days', metrics: 'responseTime,firstByte', limit: '100', page: '50' },
  },
];

function percentile(sorted: number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  return sorted[lo]! + (h - lo) * (sorted[Math.min(lo + 1, sorted.length - 1)]! - sorted[lo]!);
}

async function time(work: () => Promise<unknown>): Promise<{ p50: number; p99: number; mean: number }> {
  for (let i = 0; i < 3; i++) await work();
  const samples: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const started = performance.now();
    await work();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    p50: round(percentile(samples, 0.5)),
    p99: round(percentile(samples, 0.99)),
    mean: round(samples.reduce((a, b) => a + b, 0) / samples.length),
  };
}

/** ClickHouse quantile functions against DuckDB's quantile_cont (the exact reference), 30 days. */
async function quantileMethods(clickhouse: AnalyticsStore, duckdb: AnalyticsStore) {
  const where = `account_id = '${ACCOUNT}' AND check_id = '${CHECK}'`;
  const levels = [0.5, 0.9, 0.95, 0.99];
  const [exact] = await duckdb.query<Record<string, number>>(
    `SELECT ${levels.map((q, i) => `quantile_cont(response_time, ${q}) AS q${i}`).join(', ')} FROM check_results WHERE ${where}`,
  );
  const sortedInterp = (q: number) =>
    `arrayElement(s, toUInt64(floor((length(s) - 1) * ${q})) + 1) + ((length(s) - 1) * ${q} - floor((length(s) - 1) * ${q})) * (arrayElement(s, least(toUInt64(floor((length(s) - 1) * ${q})) + 2, length(s))) - arrayElement(s, toUInt64(floor((length(s) - 1) * ${q})) + 1))`;
  const methods: Record<string, string> = {
    'sorted groupArray + interpolation (reader)': `SELECT ${levels.map((q, i) => `${sortedInterp(q)} AS q${i}`).join(', ')} FROM (SELECT arraySort(groupArray(response_time)) AS s FROM check_results FINAL WHERE ${where})`,
    quantileExact: `SELECT ${levels.map((q, i) => `quantileExact(${q})(response_time) AS q${i}`).join(', ')} FROM check_results FINAL WHERE ${where}`,
    'quantile (reservoir)': `SELECT ${levels.map((q, i) => `quantile(${q})(response_time) AS q${i}`).join(', ')} FROM check_results FINAL WHERE ${where}`,
    quantileTDigest: `SELECT ${levels.map((q, i) => `quantileTDigest(${q})(response_time) AS q${i}`).join(', ')} FROM check_results FINAL WHERE ${where}`,
  };
  const rows = [];
  for (const [method, sql] of Object.entries(methods)) {
    const [row] = await clickhouse.query<Record<string, number>>(sql);
    const errors = levels.map((_, i) => Math.abs(row![`q${i}`]! - exact![`q${i}`]!) / Math.abs(exact![`q${i}`]!));
    const latency = await time(() => clickhouse.query(sql));
    rows.push({ method, maxRelativeError: Math.max(...errors), ...latency });
  }
  return rows;
}

async function main() {
  const engines = {
    clickhouse: createClickHouseAnalyticsStore({
      url: CLICKHOUSE_URL,
      database: DATABASE,
      log,
      requestTimeoutMs: 120_000,
    }),
    duckdb: createDuckDbAnalyticsStore({ path: DUCKDB_PATH, log }),
  };
  const results: Record<string, unknown>[] = [];
  const loads: Record<string, number> = {};
  for (const [name, store] of Object.entries(engines)) {
    loads[name] = await fill(store);
    console.log(
      `${name}: ${await store.countResults({ accountId: ACCOUNT, checkId: CHECK })} results${loads[name] ? `, loaded in ${loads[name]!.toFixed(1)} s` : ' (kept)'}`,
    );
  }
  for (const shape of shapes) {
    for (const [name, store] of Object.entries(engines)) {
      const reader = createAnalyticsReader(store);
      const request = parseAnalyticsParams(shape.params, { checkType: 'API', now: NOW });
      const latency = await time(() =>
        reader.read({ ...request, accountId: ACCOUNT, checkId: CHECK, checkType: 'API' }),
      );
      results.push({ query: shape.name, engine: name, ...latency });
    }
  }
  const quantiles = await quantileMethods(engines.clickhouse, engines.duckdb);

  const table = new Table({ head: ['query (through the reader)', 'engine', 'p50 ms', 'p99 ms', 'mean ms'] });
  for (const row of results) table.push([row.query, row.engine, row.p50, row.p99, row.mean] as string[]);
  console.log(table.toString());
  const methods = new Table({
    head: ['ClickHouse percentile method (30 d, p50/p90/p95/p99)', 'max rel. error vs exact', 'p50 ms', 'p99 ms'],
  });
  for (const row of quantiles) methods.push([row.method, row.maxRelativeError.toExponential(2), row.p50, row.p99]);
  console.log(methods.toString());

  const out = join(import.meta.dirname, '..', 'results');
  mkdirSync(out, { recursive: true });
  const file = join(out, `analytics-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      { rows: ROWS, iterations: ITERATIONS, window: '30 days', node: process.version, loads, results, quantiles },
      null,
      2,
    ),
  );
  console.log(`wrote ${file}`);

  for (const store of Object.values(engines)) await store.close();
  if (!values.keep) {
    await fetch(CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${DATABASE}` });
    const { rmSync } = await import('node:fs');
    rmSync(DUCKDB_PATH, { force: true });
    rmSync(`${DUCKDB_PATH}.wal`, { force: true });
  }
}

await main();
