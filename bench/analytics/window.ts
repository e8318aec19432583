/**
 * The check window (issue 26, "one check at least as fast as PostgreSQL"): a check read again
 * before its results change, against its first read and against PostgreSQL's engine time for
 * the same question.
 *
 * Each iteration takes a check no earlier iteration touched (--checks checks of --runs runs over
 * 30 days, API checks in 5 locations, as the matrix's one-check cell) and asks for 3 metrics over
 * 30 days twice, the second window one second later so the answer cache misses both:
 * - first read: the check is not held, the engine answers, the window loads the check after it;
 * - read again: after the load, answered from memory. The bench fails unless the window counted
 *   exactly one hit for it (through the API: /metrics).
 * ClickHouse 18.16 and DuckDB through the API (HTTP client in its own process, as the matrix);
 * chdb through the reader with the same window (no server to start the API on; tokens in an
 * embedded state store). PostgreSQL: the same question by psql, engine time only.
 *
 * Then readers under concurrency (readers.ts) with the window on, while every check gets a new
 * run each --write-every-ms through the platform's store (which renews its token): the hit rate
 * counts every answer that sent no aggregate statement (answer cache or window).
 *
 *   npm run bench -- analytics-window [--checks 62] [--runs 4000] [--iterations 40]
 *                   [--engines clickhouse,duckdb,chdb,postgres] [--readers-seconds 30] [--write-every-ms 60000]
 *                   [--window-rows 1000000]   (0: the readers alone, without the window, for the A/B)
 */
import { parseArgs } from 'node:util';
import {
  createAnalyticsReader,
  createCheckWindow,
  createStateStoreTokens,
  parseAnalyticsParams,
  withChangeTokens,
  type AnalyticsStore,
} from '#analytics';
import { createLogger } from '#core';
import { createSqliteStateStore } from '#statestore';
import { PsqlSession, postgresDown, postgresUp } from '../support/postgres.ts';
import { log, printMachine, printTable, writeResults } from '../support/report.ts';
import { makeResults, randomHex8, type Shape } from '../support/results.ts';
import { ratio, summarise, type Summary } from '../support/stats.ts';
import { createAccount, createChecks } from '../support/vigil.ts';
import { loadPostgres, postgresSql } from './postgres-baseline.ts';
import { readersUnderConcurrency, type ReadersResult } from './readers.ts';
import { startAnalyticsVigil } from './standalone.ts';
import { remoteClient } from './remote-client.ts';

const DAY = 86_400_000;
const METRICS = ['responseTime_avg', 'responseTime_p95', 'availability'];
const WARMUP = 3;

interface Options {
  checks: number;
  runs: number;
  iterations: number;
  readersSeconds: number;
  writeEveryMs: number;
  /** VIGIL_ANALYTICS_WINDOW_ROWS of the API; 0 runs only the readers, without the window (the A/B). */
  windowRows: number;
  endMs: number;
}

interface EngineResult {
  first: Summary;
  again: Summary;
  readers?: ReadersResult & { loads: number; writes: number };
}

const shapeOf = (o: Options, accountId: string, checkIds: string[]): Shape => ({
  accountId,
  checkIds,
  idPrefix: randomHex8(),
  startedMs: (i) => o.endMs - 30 * DAY + Math.floor((i * 30 * DAY) / (o.checks * o.runs)),
  seed: 11,
});

/** The question of iteration i; shift moves the window by seconds so the answer cache misses. */
const params = (o: Options, shift: number): Record<string, string> => ({
  from: String((o.endMs - 30 * DAY) / 1000 + shift),
  to: String(o.endMs / 1000 + shift),
  metrics: METRICS.join(','),
});

async function load(store: AnalyticsStore, shape: Shape, rows: number): Promise<void> {
  for (let from = 0; from < rows; from += 50_000)
    await store.insert(makeResults(shape, from, Math.min(50_000, rows - from)));
}

/** Runs o.iterations (+ warm-ups) pairs: first read, wait for the load, read again. */
async function pairs(
  o: Options,
  read: (checkId: string, shift: number) => Promise<number>,
  loaded: () => Promise<void>,
  hits: () => Promise<number>,
  checkIds: readonly string[],
): Promise<{ first: Summary; again: Summary }> {
  const first: number[] = [];
  const again: number[] = [];
  for (let i = -WARMUP; i < o.iterations; i++) {
    const checkId = checkIds[i + WARMUP]!;
    const a = await read(checkId, 0);
    await loaded();
    const before = await hits();
    const b = await read(checkId, 1);
    if ((await hits()) !== before + 1) throw new Error(`the second read of ${checkId} was not a window hit`);
    if (i < 0) continue;
    first.push(a);
    again.push(b);
  }
  return { first: summarise(first), again: summarise(again) };
}

async function apiRun(o: Options, engine: 'clickhouse' | 'duckdb'): Promise<EngineResult> {
  const { running, adminKey, stop } = await startAnalyticsVigil(engine, {
    VIGIL_ANALYTICS_WINDOW_ROWS: String(o.windowRows),
  });
  const client = remoteClient();
  try {
    const store = running.platform.analytics!;
    const account = await createAccount(running.url, adminKey);
    const checkIds = await createChecks(account.owner, o.checks, ['eu-west-1']);
    const shape = shapeOf(o, account.accountId, checkIds);
    log(`${engine}: loading ${o.checks * o.runs} results through the platform's store`);
    await load(store, shape, o.checks * o.runs);
    if (store.cluster) await store.cluster();
    const headers = { authorization: `Bearer ${account.key}`, 'x-service-account': account.accountId };
    await client.warm(`${running.url}/v1/accounts/me`, headers);
    const counter = async (name: string) => {
      const text = await (await fetch(`${running.url}/metrics`)).text();
      return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    };
    let loads = await counter('vigil_analytics_window_loads_total');
    const none = { p50: Number.NaN, p99: Number.NaN } as Summary;
    const result =
      o.windowRows === 0
        ? { first: none, again: none }
        : await pairs(
            o,
            async (checkId, shift) => {
              const query = new URLSearchParams(params(o, shift)).toString();
              const response = await client.get(`${running.url}/v1/analytics/api-checks/${checkId}?${query}`, headers);
              if (response.status !== 200)
                throw new Error(`analytics ${response.status}: ${response.body.slice(0, 300)}`);
              return response.ms;
            },
            async () => {
              const deadline = performance.now() + 30_000;
              while ((await counter('vigil_analytics_window_loads_total')) === loads) {
                if (performance.now() > deadline) throw new Error('the window did not load the check within 30 s');
                await new Promise((resolve) => setTimeout(resolve, 5));
              }
              loads++;
            },
            () => counter('vigil_analytics_window_hits_total'),
            checkIds,
          );
    log(`${engine}: first read p50 ${result.first.p50} ms, read again p50 ${result.again.p50} ms`);
    if (o.readersSeconds <= 0) return result;
    const loadsBefore = (await counter('vigil_analytics_window_loads_total')) || 0;
    let writes = 0;
    const live: Shape = { ...shape, idPrefix: randomHex8(), startedMs: () => Date.now() };
    const tick = Math.max(50, Math.floor(o.writeEveryMs / o.checks));
    const writer = setInterval(() => {
      // One check's next run per tick: every check gets one each write-every-ms.
      void store
        .insert(makeResults(live, writes++, 1))
        .catch((error: unknown) => log(`write failed: ${String(error)}`));
    }, tick);
    try {
      const readers = await readersUnderConcurrency(
        { dashboards: 50, checksPerDashboard: 20, seconds: o.readersSeconds, pollMs: 10_000 },
        { url: running.url, headers, checkIds, store },
      );
      const windowLoads = ((await counter('vigil_analytics_window_loads_total')) || 0) - loadsBefore;
      log(
        `${engine} readers: ${readers.requests} requests, p50 ${readers.latency.p50} ms, p99 ${readers.latency.p99} ms, hit rate ${readers.hitRate}, ${windowLoads} window loads, ${writes} writes`,
      );
      return { ...result, readers: { ...readers, loads: windowLoads, writes } };
    } finally {
      clearInterval(writer);
    }
  } finally {
    client.close();
    await stop();
  }
}

async function chdbRun(o: Options): Promise<EngineResult> {
  const { createChdbAnalyticsStore } = await import('../../libs/analytics/chdb-engine.ts');
  const log_ = createLogger({ level: 'silent' });
  const raw = createChdbAnalyticsStore({ database: `vigil_bench_window_${Date.now()}`, log: log_ });
  const state = createSqliteStateStore({ path: ':memory:', log: log_ });
  try {
    await raw.migrate();
    const tokens = createStateStoreTokens(state);
    const store = withChangeTokens(raw, tokens);
    const checkIds = Array.from({ length: o.checks }, () => crypto.randomUUID());
    const accountId = crypto.randomUUID();
    log(`chdb: loading ${o.checks * o.runs} results`);
    await load(store, shapeOf(o, accountId, checkIds), o.checks * o.runs);
    const window = createCheckWindow(store, { tokens, maxRows: 1_000_000 });
    const reader = createAnalyticsReader(store, { window });
    const result = await pairs(
      o,
      async (checkId, shift) => {
        const started = performance.now();
        const parsed = parseAnalyticsParams(params(o, shift), { checkType: 'API', now: new Date(o.endMs) });
        await reader.read({ ...parsed, accountId, checkId, checkType: 'API' });
        return performance.now() - started;
      },
      () => window.settled(),
      async () => window.stats().hits,
      checkIds,
    );
    log(`chdb: first read p50 ${result.first.p50} ms, read again p50 ${result.again.p50} ms (reader)`);
    return result;
  } finally {
    await raw.close();
    await state.close();
  }
}

async function postgresRun(o: Options): Promise<Summary> {
  await postgresUp();
  const accountId = crypto.randomUUID();
  const checkIds = Array.from({ length: o.checks }, () => crypto.randomUUID());
  const shape = shapeOf(o, accountId, checkIds);
  log(`postgres: loading ${o.checks * o.runs} results with COPY`);
  await loadPostgres([{ shape, rows: o.checks * o.runs }]);
  const session = new PsqlSession('postgres');
  const samples: number[] = [];
  try {
    for (let i = -WARMUP; i < o.iterations; i++) {
      const ms = await session.time(
        postgresSql({
          accountId,
          checkId: checkIds[i + WARMUP]!,
          fromMs: o.endMs - 30 * DAY,
          toMs: o.endMs,
          metrics: METRICS,
          intervalMinutes: null,
          groupByLocation: false,
        }),
      );
      if (i >= 0) samples.push(ms);
    }
  } finally {
    session.close();
    await postgresDown();
  }
  return summarise(samples);
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      checks: { type: 'string', default: '62' },
      runs: { type: 'string', default: '4000' },
      iterations: { type: 'string', default: '40' },
      engines: { type: 'string', default: 'clickhouse,duckdb,chdb,postgres' },
      'readers-seconds': { type: 'string', default: '30' },
      'write-every-ms': { type: 'string', default: '60000' },
      'window-rows': { type: 'string', default: '1000000' },
    },
  });
  const o: Options = {
    checks: Number(values.checks),
    runs: Number(values.runs),
    iterations: Number(values.iterations),
    readersSeconds: Number(values['readers-seconds']),
    writeEveryMs: Number(values['write-every-ms']),
    windowRows: Number(values['window-rows']),
    endMs: Math.floor(Date.now() / 1000) * 1000,
  };
  if (o.checks < o.iterations + WARMUP) throw new Error(`--checks must be at least --iterations + ${WARMUP}`);
  const engines = values.engines.split(',').filter((e) => o.windowRows > 0 || e === 'clickhouse' || e === 'duckdb');
  printMachine();
  const results: Record<string, EngineResult> = {};
  if (engines.includes('clickhouse')) results.clickhouse = await apiRun(o, 'clickhouse');
  if (engines.includes('duckdb')) results.duckdb = await apiRun(o, 'duckdb');
  if (engines.includes('chdb')) results.chdb = await chdbRun(o);
  const pg = engines.includes('postgres') ? await postgresRun(o) : undefined;
  const cell = (s: Summary | undefined) => (s ? `${s.p50} / ${s.p99}` : '');
  if (o.windowRows > 0)
    printTable(
      `one check (${o.runs} runs, 30 days, 3 metrics, one value): first read and read again (check window), p50 / p99 ms over ${o.iterations}; PostgreSQL engine p50 ${pg?.p50 ?? '–'} ms`,
      ['engine', 'first read', 'read again', 'PG ÷ first', 'PG ÷ again', 'target (≤ 10 ms, ≥ PG) read again'],
      Object.entries(results).map(([engine, r]) => [
        engine === 'chdb' ? 'chdb (reader)' : `${engine} (API)`,
        cell(r.first),
        cell(r.again),
        pg ? ratio(pg.p50, r.first.p50) : '',
        pg ? ratio(pg.p50, r.again.p50) : '',
        pg ? (r.again.p50 <= 10 && pg.p50 >= r.again.p50 ? 'met' : 'missed') : '',
      ]),
    );
  const readers = Object.entries(results).filter(([, r]) => r.readers !== undefined);
  if (readers.length > 0)
    printTable(
      `readers ${o.windowRows > 0 ? 'with' : 'WITHOUT'} the window: 50 dashboards × 20 checks, polled every 10 s for ${o.readersSeconds} s, every check written every ${o.writeEveryMs} ms`,
      ['engine', 'requests/s', 'errors', 'p50 ms', 'p99 ms', 'hit rate', 'window loads', 'writes'],
      readers.map(([engine, r]) => [
        engine,
        r.readers!.perSecond,
        r.readers!.errors,
        r.readers!.latency.p50,
        r.readers!.latency.p99,
        r.readers!.hitRate,
        r.readers!.loads,
        r.readers!.writes,
      ]),
    );
  writeResults('analytics-window', { options: o, results, postgres: pg });
}
