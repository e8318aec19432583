/**
 * "How cost grows" (issue 16): analytics p50 of one check, through the reader (the endpoint's
 * code, without HTTP and the answer cache), against
 * - the number of checks in the account (10, 1,000, 10,000; each its own database, so the table
 *   grows with the account): a one-check query should stay flat;
 * - the window (1, 30, 90 days) on the largest account: cost should follow the rows in the window.
 * The queried check runs every 10.8 min (4,000 runs in 30 days) for 90 days; every other check has
 * --growth-rows-per-check runs spread over the same 90 days. DuckDB is timed as loaded (rows in
 * arrival order) and again after cluster() (sorted by check, what the daily job leaves).
 *
 *   npm run bench -- analytics --growth-only [--growth-rows-per-check 150] [--engines clickhouse,duckdb,chdb]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createAnalyticsReader,
  createClickHouseAnalyticsStore,
  createDuckDbAnalyticsStore,
  parseAnalyticsParams,
  type AnalyticsStore,
} from '#analytics';
import { createLogger } from '#core';
import { benchConfig } from '../config.ts';
import { log, printTable } from '../support/report.ts';
import { makeResults, randomHex8, type Shape } from '../support/results.ts';
import { cleanUp, runSuffix } from '../support/services.ts';
import { timeIt, type Summary } from '../support/stats.ts';

const DAY = 86_400_000;
const SPAN = 90 * DAY;
const TARGET_RUNS = 12_000; // 4,000 in any 30 days
const SIZES = [10, 1_000, 10_000];
const WINDOWS = [1, 30, 90];
const METRICS = 'responseTime_avg,responseTime_p95,availability';

export type GrowthEngine = 'clickhouse' | 'duckdb' | 'chdb';

export interface GrowthOptions {
  engines: GrowthEngine[];
  rowsPerCheck: number;
  iterations: number;
}

interface Variant {
  /** 'duckdb' and 'duckdb clustered' are two variants of one store. */
  name: string;
  byChecks: Record<number, Summary>;
  byWindow: Record<number, Summary>;
  loadSeconds: Record<number, number>;
}

const uuid = () => crypto.randomUUID();
const silent = createLogger({ level: 'silent' });

async function load(
  store: AnalyticsStore,
  endMs: number,
  accountId: string,
  target: string,
  checks: number,
  perCheck: number,
) {
  const others = Array.from({ length: checks - 1 }, uuid);
  const otherRows = others.length * perCheck;
  const sets: [Shape, number][] = [
    [
      {
        accountId,
        checkIds: others,
        idPrefix: randomHex8(),
        startedMs: (i) => endMs - SPAN + Math.floor((i * SPAN) / otherRows),
        seed: 3,
      },
      otherRows,
    ],
    [
      {
        accountId,
        checkIds: [target],
        idPrefix: randomHex8(),
        startedMs: (i) => endMs - SPAN + Math.floor((i * SPAN) / TARGET_RUNS),
        seed: 5,
      },
      TARGET_RUNS,
    ],
  ];
  // In arrival (time) order, a day at a time across both sets, as an ingestor would append them:
  // the queried check's runs are spread over the whole table, not stored together at its end.
  const started = performance.now();
  const DAYS = 90;
  let batch: ReturnType<typeof makeResults> = [];
  for (let day = 0; day < DAYS; day++) {
    for (const [shape, rows] of sets) {
      const from = Math.floor((day * rows) / DAYS);
      const to = Math.floor(((day + 1) * rows) / DAYS);
      if (to > from) batch = batch.concat(makeResults(shape, from, to - from));
    }
    if (batch.length >= 50_000 || day === DAYS - 1) {
      await store.insert(batch);
      batch = [];
    }
  }
  return (performance.now() - started) / 1000;
}

function timer(store: AnalyticsStore, endMs: number, accountId: string, checkId: string, iterations: number) {
  const reader = createAnalyticsReader(store);
  return (days: number) =>
    timeIt(iterations, (i) => {
      // A second's shift per iteration: the same work, never a cached plan or answer.
      const to = endMs / 1000 - 60 - Math.max(i, -i);
      const params = { from: String(to - days * 86_400), to: String(to), metrics: METRICS };
      const request = parseAnalyticsParams(params, { checkType: 'API', now: new Date(endMs) });
      return reader.read({ ...request, accountId, checkId, checkType: 'API' });
    });
}

async function openStore(engine: GrowthEngine, database: string, dir: string): Promise<AnalyticsStore> {
  if (engine === 'duckdb') return createDuckDbAnalyticsStore({ path: join(dir, `${database}.duckdb`), log: silent });
  if (engine === 'chdb') {
    // A devDependency, loaded only when asked for.
    const { createChdbAnalyticsStore } = await import('../../libs/analytics/chdb-engine.ts');
    return createChdbAnalyticsStore({ database, log: silent });
  }
  return createClickHouseAnalyticsStore({
    url: benchConfig.clickhouseUrl,
    database,
    log: silent,
    requestTimeoutMs: 300_000,
  });
}

async function engineGrowth(engine: GrowthEngine, options: GrowthOptions, endMs: number): Promise<Variant[]> {
  const plain: Variant = {
    name:
      engine === 'clickhouse' ? 'ClickHouse 18.16' : engine === 'chdb' ? 'chdb (ClickHouse 26)' : 'DuckDB, as loaded',
    byChecks: {},
    byWindow: {},
    loadSeconds: {},
  };
  const clustered: Variant = { name: 'DuckDB, clustered', byChecks: {}, byWindow: {}, loadSeconds: {} };
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-growth-'));
  try {
    for (const checks of SIZES) {
      const database = `vigil_bench_growth_${runSuffix()}_${checks}`;
      const store = await openStore(engine, database, dir);
      try {
        await store.migrate();
        const accountId = uuid();
        const target = uuid();
        plain.loadSeconds[checks] = await load(store, endMs, accountId, target, checks, options.rowsPerCheck);
        const time = timer(store, endMs, accountId, target, options.iterations);
        const largest = checks === SIZES[SIZES.length - 1];
        const measure = async (variant: Variant) => {
          variant.byChecks[checks] = await time(30);
          if (largest) for (const days of WINDOWS) variant.byWindow[days] = await time(days);
          log(`growth ${variant.name}, ${checks} checks: 30 d p50 ${variant.byChecks[checks]!.p50} ms`);
        };
        await measure(plain);
        if (store.cluster) {
          const started = performance.now();
          await store.cluster();
          clustered.loadSeconds[checks] = (performance.now() - started) / 1000;
          await measure(clustered);
        }
      } finally {
        await store.close();
        if (engine === 'clickhouse') await cleanUp({ database });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return engine === 'duckdb' ? [plain, clustered] : [plain];
}

export async function runGrowth(options: GrowthOptions): Promise<Record<string, unknown>> {
  const endMs = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const variants: Variant[] = [];
  for (const engine of options.engines) {
    log(
      `growth: ${engine}, accounts of ${SIZES.join(', ')} checks × ${options.rowsPerCheck} runs, queried check ${TARGET_RUNS} runs over 90 days`,
    );
    variants.push(...(await engineGrowth(engine, options, endMs)));
  }
  const cell = (s: Summary | undefined) => (s ? `${s.p50} / ${s.p99}` : '');
  printTable(
    `how cost grows: one check, 30 days (4,000 runs), 3 metrics, through the reader; p50 / p99 ms over ${options.iterations} runs, by checks in the account (others ${options.rowsPerCheck} runs each)`,
    [
      'engine',
      ...SIZES.map((n) => `${n} checks (${n * options.rowsPerCheck + TARGET_RUNS} rows)`),
      'p50 at 10,000 ÷ at 10',
    ],
    variants.map((v) => [
      v.name,
      ...SIZES.map((n) => cell(v.byChecks[n])),
      v.byChecks[10_000] && v.byChecks[10] ? (v.byChecks[10_000].p50 / v.byChecks[10].p50).toFixed(2) : '',
    ]),
  );
  printTable(
    `how cost grows: one check, 3 metrics, by window (account of ${SIZES[SIZES.length - 1]} checks); p50 / p99 ms`,
    ['engine', ...WINDOWS.map((d) => `${d} d (${Math.round((TARGET_RUNS * d) / 90)} runs)`), 'p50 at 90 d ÷ at 1 d'],
    variants.map((v) => [
      v.name,
      ...WINDOWS.map((d) => cell(v.byWindow[d])),
      v.byWindow[90] && v.byWindow[1] ? (v.byWindow[90].p50 / v.byWindow[1].p50).toFixed(2) : '',
    ]),
  );
  return {
    sizes: SIZES,
    windows: WINDOWS,
    targetRuns: TARGET_RUNS,
    rowsPerCheck: options.rowsPerCheck,
    metrics: METRICS,
    variants,
  };
}
