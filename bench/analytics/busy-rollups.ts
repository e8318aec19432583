/**
 * What the rollups give a busy check: one check with --rows results over 30 days, rolled
 * (store.rollups.advance), then the matrix's busy cells (3 and 12 metrics, one value) through the
 * reader on the exact path (`rollups: false`) and with `rollups: true` (daily rows, hourly edges,
 * raw unrolled hours: the endpoint's default for busy checks without location), on each engine,
 * in turns. Prints p50s, their ratio and the largest relative difference between the two answers
 * (percentiles come from the sketch: within 1%, rollup/sketch.ts). With a small --rows (50000)
 * it shows where the exact path stops losing (reader.ts, BUSY_RUNS).
 *
 *   npx tsx bench/analytics/busy-rollups.ts [--rows 1000000] [--iterations 10] [--engines clickhouse,duckdb,chdb]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  createAnalyticsReader,
  createClickHouseAnalyticsStore,
  createDuckDbAnalyticsStore,
  parseAnalyticsParams,
  type AnalyticsAnswer,
  type AnalyticsStore,
} from '#analytics';
import { createLogger } from '#core';
import { benchConfig } from '../config.ts';
import { log, printMachine, printTable } from '../support/report.ts';
import { makeResults, randomHex8 } from '../support/results.ts';
import { summarise } from '../support/stats.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    iterations: { type: 'string', default: '10' },
    engines: { type: 'string', default: 'clickhouse,duckdb,chdb' },
  },
});
const ROWS = Number(values.rows);
const ITERATIONS = Number(values.iterations);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const silent = createLogger({ level: 'silent' });
const METRICS = {
  3: 'responseTime_avg,responseTime_p95,availability',
  12: 'responseTime_avg,responseTime_min,responseTime_max,responseTime_median,responseTime_p90,responseTime_p95,responseTime_p99,responseTime_stddev,dns_avg,firstByte_p95,availability,retries',
};

async function open(engine: string, name: string): Promise<{ store: AnalyticsStore; drop: () => Promise<void> }> {
  if (engine === 'clickhouse') {
    const database = `vigil_bench_busy_${name}`;
    const store = createClickHouseAnalyticsStore({
      url: benchConfig.clickhouseUrl,
      database,
      log: silent,
      requestTimeoutMs: 600_000,
    });
    return {
      store,
      drop: async () => {
        await store.close();
        await fetch(benchConfig.clickhouseUrl, { method: 'POST', body: `DROP DATABASE IF EXISTS ${database}` });
      },
    };
  }
  if (engine === 'chdb') {
    const { createChdbAnalyticsStore } = await import('../../libs/analytics/chdb-engine.ts');
    const store = createChdbAnalyticsStore({ database: `vigil_bench_busy_${name}`, log: silent });
    return { store, drop: () => store.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'vigil-busy-'));
  const store = createDuckDbAnalyticsStore({ path: join(dir, 'a.duckdb'), log: silent });
  return {
    store,
    drop: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Largest relative difference between two answers' numbers (0 when equal, both null counts as equal). */
function largestDifference(a: AnalyticsAnswer, b: AnalyticsAnswer): number {
  let worst = 0;
  a.series.forEach((entry, s) =>
    entry.data.forEach((point, p) => {
      for (const [key, value] of Object.entries(point)) {
        const other = b.series[s]?.data[p]?.[key];
        if (typeof value !== 'number' || typeof other !== 'number') continue;
        worst = Math.max(worst, Math.abs(value - other) / Math.max(Math.abs(value), 1e-9));
      }
    }),
  );
  return worst;
}

async function main() {
  printMachine();
  const endMs = Math.floor(Date.now() / HOUR) * HOUR;
  const accountId = crypto.randomUUID();
  const checkId = crypto.randomUUID();
  const shape = {
    accountId,
    checkIds: [checkId],
    idPrefix: randomHex8(),
    startedMs: (i: number) => endMs - 30 * DAY + Math.floor((i * 30 * DAY) / ROWS),
    seed: 11,
  };
  const rows: unknown[][] = [];
  for (const engine of values.engines.split(',')) {
    const { store, drop } = await open(engine, `${Date.now()}`);
    try {
      await store.migrate();
      let started = performance.now();
      for (let from = 0; from < ROWS; from += 50_000)
        await store.insert(makeResults(shape, from, Math.min(50_000, ROWS - from)));
      log(`${engine}: loaded ${ROWS} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      started = performance.now();
      await store.rollups.advance();
      log(`${engine}: rolled in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      const exact = createAnalyticsReader(store, { rollups: false });
      const rolled = createAnalyticsReader(store, { rollups: true });
      for (const [count, metrics] of Object.entries(METRICS)) {
        const query = (i: number) => ({
          ...parseAnalyticsParams(
            { from: String((endMs - 30 * DAY) / 1000 + i + 10), to: String(endMs / 1000 + i + 10), metrics },
            { checkType: 'API', now: new Date(endMs) },
          ),
          accountId,
          checkId,
          checkType: 'API' as const,
        });
        const samples = { exact: [] as number[], rolled: [] as number[] };
        let difference = 0;
        for (let i = -2; i < ITERATIONS; i++) {
          const t0 = performance.now();
          const a = await exact.read(query(i));
          const t1 = performance.now();
          const b = await rolled.read(query(i));
          const t2 = performance.now();
          if (i >= 0) {
            samples.exact.push(t1 - t0);
            samples.rolled.push(t2 - t1);
          }
          difference = Math.max(difference, largestDifference(a, b));
        }
        const e = summarise(samples.exact);
        const r = summarise(samples.rolled);
        rows.push([engine, count, e.p50, r.p50, Math.round((e.p50 / r.p50) * 100) / 100, difference.toExponential(2)]);
        log(`${engine} ${count} metrics: exact p50 ${e.p50} ms, rollups p50 ${r.p50} ms`);
      }
    } finally {
      await drop();
    }
  }
  printTable(
    `busy check (${ROWS} results in 30 days, one value) through the reader: exact path vs rollups (daily, hourly edges, raw tail); p50 ms over ${ITERATIONS}`,
    ['engine', 'metrics', 'exact p50', 'rollups p50', 'exact ÷ rollups', 'largest relative difference'],
    rows,
  );
}

await main();
