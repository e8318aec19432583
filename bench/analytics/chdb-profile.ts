/**
 * Where chdb's (or ClickHouse 18.16's) time goes on the matrix's 30-day cells (issue 26): loads
 * the matrix's shape (--rows over --checks checks, plus one busy check with --hot-rows), rolls it,
 * then per cell times, in turns, the reader, each statement it sends on its own, and `SELECT 1`
 * (the fixed cost per statement). Medians in ms, with the load average; PRINT_SQL=1 prints the
 * statements.
 *
 *   npx tsx bench/analytics/chdb-profile.ts [--engine chdb|clickhouse] [--rows 250000] [--checks 62]
 *                                           [--hot-rows 1000000] [--iterations 20]
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import {
  createAnalyticsReader,
  createClickHouseAnalyticsStore,
  parseAnalyticsParams,
  type AnalyticsStore,
} from '#analytics';
import { benchConfig } from '../config.ts';
import { createLogger } from '#core';
import { log } from '../support/report.ts';
import { makeResults, randomHex8, type Shape } from '../support/results.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '250000' },
    checks: { type: 'string', default: '62' },
    'hot-rows': { type: 'string', default: '1000000' },
    iterations: { type: 'string', default: '20' },
    engine: { type: 'string', default: 'chdb' },
  },
});
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const endMs = Math.floor(Date.now() / HOUR) * HOUR;
const accountId = crypto.randomUUID();
const shapeOf = (checkIds: string[], rows: number): Shape => ({
  accountId,
  checkIds,
  idPrefix: randomHex8(),
  startedMs: (i) => endMs - 30 * DAY + Math.floor((i * 30 * DAY) / rows),
  seed: 11,
});
const rows = Number(values.rows);
const hotRows = Number(values['hot-rows']);
const iterations = Number(values.iterations);
const plain = shapeOf(
  Array.from({ length: Number(values.checks) }, () => crypto.randomUUID()),
  rows,
);
const hot = shapeOf([crypto.randomUUID()], hotRows);
const METRICS = {
  3: 'responseTime_avg,responseTime_p95,availability',
  12: 'responseTime_avg,responseTime_min,responseTime_max,responseTime_median,responseTime_p90,responseTime_p95,responseTime_p99,responseTime_stddev,dns_avg,firstByte_p95,availability,retries',
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? NaN;
const time = async (work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

const database = `vigil_bench_profile_${Date.now()}`;
const silent = createLogger({ level: 'silent' });
const store: AnalyticsStore =
  values.engine === 'clickhouse'
    ? createClickHouseAnalyticsStore({
        url: benchConfig.clickhouseUrl,
        database,
        log: silent,
        requestTimeoutMs: 600_000,
      })
    : (await import('../../libs/analytics/chdb-engine.ts')).createChdbAnalyticsStore({ database, log: silent });
try {
  await store.migrate();
  for (const [shape, n] of [
    [plain, rows],
    [hot, hotRows],
  ] as const)
    for (let from = 0; from < n; from += 50_000)
      await store.insert(makeResults(shape, from, Math.min(50_000, n - from)));
  await store.rollups.advance();
  log(`${values.engine}: loaded and rolled, load ${loadavg()[0]!.toFixed(2)}`);
  const reader = createAnalyticsReader(store);
  const request = (checkId: string, metrics: string, shift: number) => {
    const params = { from: String((endMs - 30 * DAY) / 1000 + shift), to: String(endMs / 1000 + shift), metrics };
    return { ...parseAnalyticsParams(params, { checkType: 'API', now: new Date(endMs) }), accountId, checkId };
  };
  // The statements the reader sends, captured by a store that forwards and records.
  const sqls: string[] = [];
  const recording = Object.create(store) as AnalyticsStore;
  recording.query = (sql) => {
    sqls.push(sql);
    return store.query(sql);
  };
  const recorder = createAnalyticsReader(recording);
  for (const [label, checkOf, shifting] of [
    ['busy', () => hot.checkIds[0]!, true],
    ['one check', (i: number) => plain.checkIds[(i + plain.checkIds.length) % plain.checkIds.length]!, false],
  ] as const)
    for (const metrics of [METRICS[3], METRICS[12]]) {
      const n = metrics.split(',').length;
      // Twice first: the reader learns the check's size (busy checks take the rollups from the second read).
      for (let i = -3; i < 0; i++)
        await recorder.read({ ...request(checkOf(i), metrics, shifting ? i + 10 : 0), checkType: 'API' });
      for (let i = -3; i < 0; i++)
        await reader.read({ ...request(checkOf(i), metrics, shifting ? i + 10 : 0), checkType: 'API' });
      const readerMs: number[] = [];
      const perSql: number[][] = [];
      const one: number[] = [];
      for (let i = 0; i < iterations; i++) {
        const query = { ...request(checkOf(i), metrics, shifting ? i + 10 : 0), checkType: 'API' as const };
        sqls.length = 0;
        await recorder.read(query);
        const captured = [...sqls];
        readerMs.push(await time(() => reader.read(query)));
        for (const [s, sql] of captured.entries()) (perSql[s] ??= []).push(await time(() => store.query(sql)));
        one.push(await time(() => store.query('SELECT 1')));
      }
      log(
        `${values.engine} ${label}, ${n} metrics: reader ${median(readerMs).toFixed(2)} ms; its statements ${perSql
          .map((xs) => median(xs).toFixed(2))
          .join(' + ')} ms; SELECT 1 ${median(one).toFixed(2)} ms; load ${loadavg()[0]!.toFixed(2)}`,
      );
      if (process.env.PRINT_SQL) for (const sql of sqls) console.log(`${sql}\n`);
    }
} finally {
  await store.close();
}
