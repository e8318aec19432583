/**
 * Analytics latency, as a matrix: windows 24 h / 7 d / 30 d × 3 or 12 metrics (percentiles and
 * stddev among them) × plain / aggregationInterval / groupBy runLocation / both, over ≥ 2M
 * results in 30 days for 500 API checks in 5 locations. Each cell is timed four ways:
 * - through the API: HTTP with a real owner key, to Vigil started in this process (ClickHouse with
 *   Redis state, then DuckDB with the embedded state), a fresh check each time so the answer cache
 *   always misses (its get+set is part of the API time); the HTTP client runs in a process of its
 *   own and times each request there (remote-client.ts), as a user's client would;
 * - the same SQL the reader sends, straight to the engine through the store's client (the ratio
 *   API / raw is our overhead), in turns with the API requests so both meet the engine alike;
 * - on ClickHouse and on DuckDB;
 * - against PostgreSQL (Debian's, a throwaway cluster): the same rows, an index on
 *   (account, check, started_at), a hand-written query with percentile_cont.
 * Every mode queries its own checks (same data shape), so none warms the next one's rows.
 *
 * Beside the matrix, the 30-day cells again on one busy check with --hot-rows results (default
 * 1,000,000; 0 leaves it out), loaded on top of the others: where a column store should pull ahead.
 *
 *   npm run bench -- analytics [--rows 2000000] [--checks 500] [--hot-rows 1000000] [--iterations 40] [--quick]
 *                              [--engines clickhouse,duckdb,postgres] [--growth | --growth-only] (see growth.ts)
 *                              [--readers-seconds 30] [--readers-poll-ms 10000] [--dashboards 50] [--dashboard-checks 20]
 * After the matrix, on ClickHouse and DuckDB: readers under concurrency (readers.ts).
 */
import { parseArgs } from 'node:util';
import { createAnalyticsReader, parseAnalyticsParams, type AnalyticsStore } from '#analytics';
import { PsqlSession, postgresDown, postgresUp } from '../support/postgres.ts';
import { log, printMachine, printTable, writeResults } from '../support/report.ts';
import { LOCATIONS, makeResults, randomHex8, type Shape } from '../support/results.ts';
import { ratio, summarise, type Summary } from '../support/stats.ts';
import { createAccount, createChecks } from '../support/vigil.ts';
import { chdbRun } from './chdb-run.ts';
import { runGrowth, type GrowthEngine } from './growth.ts';
import { loadPostgres, postgresSql } from './postgres-baseline.ts';
import { verdictRows } from './verdict.ts';
import { remoteClient } from './remote-client.ts';
import { readersUnderConcurrency, type ReadersOptions, type ReadersResult } from './readers.ts';
import { startAnalyticsVigil } from './standalone.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const METRICS = {
  3: ['responseTime_avg', 'responseTime_p95', 'availability'],
  12: [
    'responseTime_avg',
    'responseTime_min',
    'responseTime_max',
    'responseTime_median',
    'responseTime_p90',
    'responseTime_p95',
    'responseTime_p99',
    'responseTime_stddev',
    'dns_avg',
    'firstByte_p95',
    'availability',
    'retries',
  ],
};

interface Cell {
  window: string;
  windowMs: number;
  metrics: string[];
  interval: number | null;
  groupBy: boolean;
  label: string;
  /** On the one busy check (--hot-rows), not on the 500 ordinary ones. */
  hot: boolean;
}

function matrix(quick: boolean, hotRows: number): Cell[] {
  const windows = [
    { window: '24h', windowMs: DAY, intervalMinutes: 60 },
    { window: '7d', windowMs: 7 * DAY, intervalMinutes: 360 },
    { window: '30d', windowMs: 30 * DAY, intervalMinutes: 1440 },
  ].filter((w) => !quick || w.window === '30d');
  const variants = quick
    ? [[false, false]]
    : [
        [false, false],
        [true, false],
        [false, true],
        [true, true],
      ];
  const cells = (hot: boolean, ws: typeof windows, vs: boolean[][]) =>
    ws.flatMap((w) =>
      [METRICS[3], METRICS[12]].flatMap((metrics) =>
        vs.map(([interval, groupBy]) => ({
          window: w.window,
          windowMs: w.windowMs,
          metrics,
          interval: interval ? w.intervalMinutes : null,
          groupBy: groupBy!,
          label:
            [
              hot ? `busy check (${hotRows} rows)` : '',
              interval ? `${w.intervalMinutes} min buckets` : '',
              groupBy ? 'by location' : '',
            ]
              .filter(Boolean)
              .join(', ') || 'one value',
          hot,
        })),
      ),
    );
  const thirty = windows.filter((w) => w.window === '30d');
  return [
    ...cells(false, windows, variants),
    ...(hotRows > 0
      ? cells(true, thirty, [
          [false, false],
          [true, true],
        ])
      : []),
  ];
}

interface Context {
  rows: number;
  iterations: number;
  cells: Cell[];
  endMs: number;
  checks: number;
  hotRows: number;
  /** Readers under concurrency after the matrix (readers.ts); undefined leaves it out. */
  readers?: ReadersOptions;
}

type Timings = Record<string, { api: Summary; raw: Summary }>;

/** The busy check is asked the same thing each time: its window slides by a second so the answer cache misses. */
function params(cell: Cell, endMs: number, i: number): Record<string, string> {
  const shift = cell.hot ? i + 10 : 0;
  const p: Record<string, string> = {
    from: String((endMs - cell.windowMs) / 1000 + shift),
    to: String(endMs / 1000 + shift),
    metrics: cell.metrics.join(','),
  };
  if (cell.interval !== null) p.aggregationInterval = String(cell.interval);
  if (cell.groupBy) p.groupBy = 'runLocation';
  return p;
}

/** Mode m (0 api, 1 raw, 2 postgres) of cell c, iteration i: its own check, never the same twice in a cell. */
const checkIndex = (checks: number, c: number, mode: number, i: number) =>
  (((c * 13 + mode * Math.floor(checks / 3) + i) % checks) + checks) % checks;

function shapeFor(ctx: Context, accountId: string, checkIds: string[], rows = ctx.rows): Shape {
  const step = (30 * DAY) / rows;
  return {
    accountId,
    checkIds,
    idPrefix: randomHex8(),
    startedMs: (i) => ctx.endMs - 30 * DAY + Math.floor(i * step),
    seed: 11,
  };
}

/**
 * Times a and b in turns (a then b, then b then a), with a few warm-ups of each; a function that
 * resolves to a number gives its own timing (ms, measured by the client process). Timed one after
 * the other, the engine's second and later queries ran back to back and about 1 ms faster than the
 * first after a pause (bench/analytics/api-overhead.ts, 2026-11-23), which the API/raw ratio then
 * counted as API overhead; in turns both see the same engine.
 */
async function timeInterleaved(
  iterations: number,
  a: (i: number) => Promise<unknown>,
  b: (i: number) => Promise<unknown>,
): Promise<{ a: Summary; b: Summary }> {
  const samples = { a: [] as number[], b: [] as number[] };
  const timed = async (which: 'a' | 'b', i: number) => {
    const started = performance.now();
    const own = await (which === 'a' ? a : b)(i);
    if (i >= 0) samples[which].push(typeof own === 'number' ? own : performance.now() - started);
  };
  for (let i = -3; i < iterations; i++) {
    const order = (i & 1) === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const which of order) await timed(which, i);
  }
  return { a: summarise(samples.a), b: summarise(samples.b) };
}

/** The SQL the reader sends for a request, captured by a store that only records. */
async function readerSql(
  store: AnalyticsStore,
  request: Record<string, string>,
  accountId: string,
  checkId: string,
  endMs: number,
): Promise<string[]> {
  const sqls: string[] = [];
  const recorder = {
    dialect: store.dialect,
    source: store.source,
    rollups: {
      source: store.rollups.source,
      daily: store.rollups.daily,
      watermarks: () => store.rollups.watermarks(),
    },
    query: async (sql: string) => {
      sqls.push(sql);
      return [];
    },
  } as unknown as AnalyticsStore;
  const parsed = parseAnalyticsParams(request, { checkType: 'API', now: new Date(endMs) });
  await createAnalyticsReader(recorder).read({ ...parsed, accountId, checkId, checkType: 'API' });
  return sqls;
}

async function engineRun(
  ctx: Context,
  engine: 'clickhouse' | 'duckdb',
): Promise<{ timings: Timings; shape: Shape; hot: Shape; loadSeconds: number; readers?: ReadersResult }> {
  // Every cell times first reads, as in earlier sittings (the window is off); a check read again is window.ts's.
  const { running, adminKey, stop } = await startAnalyticsVigil(engine);
  try {
    const store = running.platform.analytics!;
    const account = await createAccount(running.url, adminKey);
    const checkIds = await createChecks(account.owner, ctx.checks + 1, LOCATIONS);
    const shape = shapeFor(ctx, account.accountId, checkIds.slice(0, ctx.checks));
    const hot = shapeFor(ctx, account.accountId, checkIds.slice(ctx.checks), ctx.hotRows);
    log(
      `${engine}: loading ${ctx.rows} results for ${ctx.checks} checks${ctx.hotRows ? ` and ${ctx.hotRows} for one busy check` : ''}`,
    );
    const started = performance.now();
    for (const [set, rows] of [
      [shape, ctx.rows],
      [hot, ctx.hotRows],
    ] as const) {
      for (let from = 0; from < rows; from += 50_000)
        await store.insert(makeResults(set, from, Math.min(50_000, rows - from)));
    }
    const loadSeconds = (performance.now() - started) / 1000;
    // A bulk load is a backfill: inserts leave its hours to the next roll (see rollup/maintain.ts).
    const rollStarted = performance.now();
    // On every engine: the endpoint reads busy checks through the rollups by default. The roll goes
    // a day at a time (rollup/maintain.ts), so ClickHouse 18.16 finishes each step within the client's timeout.
    await store.rollups
      .advance()
      .then((marks) =>
        log(
          `${engine}: rolled up to ${new Date(marks.completed).toISOString()} in ${((performance.now() - rollStarted) / 1000).toFixed(1)} s`,
        ),
      )
      .catch((error: unknown) => log(`${engine}: roll failed (${String(error)}); queries take the exact path`));
    if (store.cluster) {
      // What the daily `analytics:rollup -- --cluster` job leaves: rows sorted by check.
      const clusterStarted = performance.now();
      const { rows } = await store.cluster();
      log(
        `${engine}: clustered ${rows} rows by check in ${((performance.now() - clusterStarted) / 1000).toFixed(1)} s`,
      );
    }
    if (engine === 'clickhouse') await store.query(`SELECT count() FROM ${store.source}`); // let the parts settle into the page cache
    const headers = { authorization: `Bearer ${account.key}`, 'x-service-account': account.accountId };
    const timings: Timings = {};
    const client = remoteClient();
    await client.warm(`${running.url}/v1/accounts/me`, headers);
    for (const [c, cell] of ctx.cells.entries()) {
      const check = (mode: number, i: number) =>
        cell.hot ? hot.checkIds[0]! : shape.checkIds[checkIndex(ctx.checks, c, mode, i)]!;
      const sqls = new Map<number, string[]>();
      for (let i = -3; i < ctx.iterations; i++)
        sqls.set(i, await readerSql(store, params(cell, ctx.endMs, i), shape.accountId, check(1, i), ctx.endMs));
      const { a: api, b: raw } = await timeInterleaved(
        ctx.iterations,
        async (i) => {
          const query = new URLSearchParams(params(cell, ctx.endMs, i)).toString();
          const response = await client.get(`${running.url}/v1/analytics/api-checks/${check(0, i)}?${query}`, headers);
          if (response.status !== 200) throw new Error(`analytics ${response.status}: ${response.body.slice(0, 300)}`);
          return response.ms;
        },
        (i) => Promise.all(sqls.get(i)!.map((sql) => store.query(sql))),
      );
      timings[c] = { api, raw };
      log(
        `${engine} ${cell.window} ${cell.metrics.length} metrics ${cell.label}: API p50 ${api.p50} ms, raw p50 ${raw.p50} ms`,
      );
    }
    client.close();
    let readers: ReadersResult | undefined;
    if (ctx.readers !== undefined) {
      readers = await readersUnderConcurrency(ctx.readers, {
        url: running.url,
        headers,
        checkIds: shape.checkIds,
        store,
      });
      log(
        `${engine} readers: ${readers.requests} requests (${readers.perSecond}/s, ${readers.errors} errors), p50 ${readers.latency.p50} ms, p99 ${readers.latency.p99} ms, cache hit rate ${readers.hitRate}`,
      );
    }
    return { timings, shape, hot, loadSeconds, readers };
  } finally {
    await stop();
  }
}

async function postgresRun(
  ctx: Context,
  shape: Shape,
  hot: Shape,
): Promise<{ timings: Record<string, Summary>; loadSeconds: number }> {
  await postgresUp();
  log(`postgres: loading ${ctx.rows} results with COPY`);
  const loadSeconds = await loadPostgres([
    { shape, rows: ctx.rows },
    { shape: hot, rows: ctx.hotRows },
  ]);
  const session = new PsqlSession('postgres');
  const timings: Record<string, Summary> = {};
  try {
    for (const [c, cell] of ctx.cells.entries()) {
      const sql = (i: number) => {
        const shift = cell.hot ? (i + 10) * 1000 : 0;
        const checkId = cell.hot ? hot.checkIds[0]! : shape.checkIds[checkIndex(ctx.checks, c, 2, i)]!;
        return postgresSql({
          accountId: shape.accountId,
          checkId,
          fromMs: ctx.endMs - cell.windowMs + shift,
          toMs: ctx.endMs + shift,
          metrics: cell.metrics,
          intervalMinutes: cell.interval,
          groupByLocation: cell.groupBy,
        });
      };
      const samples: number[] = [];
      for (let i = -3; i < ctx.iterations; i++) {
        const ms = await session.time(sql(i));
        if (i >= 0) samples.push(ms);
      }
      timings[c] = summarise(samples);
      log(`postgres ${cell.window} ${cell.metrics.length} metrics ${cell.label}: p50 ${timings[c]!.p50} ms`);
    }
  } finally {
    session.close();
    await postgresDown();
  }
  return { timings, loadSeconds };
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      rows: { type: 'string', default: '2000000' },
      checks: { type: 'string', default: '500' },
      iterations: { type: 'string', default: '40' },
      quick: { type: 'boolean', default: false },
      engines: { type: 'string', default: 'clickhouse,duckdb,postgres' },
      'hot-rows': { type: 'string', default: '1000000' },
      // The windows' end (an ISO time, taken to its hour); default the last whole hour. Between
      // 00:00 and 02:00 UTC the busy check's last daily bucket holds under 2,000 runs, whose
      // percentiles the reader computes exactly (the whole answer takes the exact path).
      end: { type: 'string' },
      // "How cost grows" tables (growth.ts): after the matrix with --growth, or alone.
      growth: { type: 'boolean', default: false },
      'growth-only': { type: 'boolean', default: false },
      'growth-rows-per-check': { type: 'string', default: '150' },
      // Readers under concurrency (readers.ts), after the matrix on each engine; 0 s leaves it out.
      'readers-seconds': { type: 'string', default: '30' },
      'readers-poll-ms': { type: 'string', default: '10000' },
      dashboards: { type: 'string', default: '50' },
      'dashboard-checks': { type: 'string', default: '20' },
    },
  });
  const growthOptions = () => ({
    engines: values.engines
      .split(',')
      .flatMap((e) => (e === 'clickhouse' || e === 'duckdb' || e === 'chdb' ? [e as GrowthEngine] : [])),
    rowsPerCheck: Number(values['growth-rows-per-check']),
    iterations: Number(values.iterations),
  });
  if (values['growth-only']) {
    printMachine();
    writeResults('analytics-growth', await runGrowth(growthOptions()));
    return;
  }
  if (values.end !== undefined && !(Date.parse(values.end) <= Date.now()))
    throw new Error(`--end must be an ISO time in the past, not ${values.end}`);
  const engines = values.engines.split(',');
  const hotRows = Number(values['hot-rows']);
  const ctx: Context = {
    rows: Number(values.rows),
    checks: Number(values.checks),
    hotRows,
    iterations: Number(values.iterations),
    cells: matrix(values.quick, hotRows),
    endMs: Math.floor((values.end === undefined ? Date.now() : Date.parse(values.end)) / HOUR) * HOUR,
    readers:
      Number(values['readers-seconds']) > 0
        ? {
            dashboards: Number(values.dashboards),
            checksPerDashboard: Number(values['dashboard-checks']),
            seconds: Number(values['readers-seconds']),
            pollMs: Number(values['readers-poll-ms']),
          }
        : undefined,
  };
  printMachine();
  const ch = engines.includes('clickhouse') ? await engineRun(ctx, 'clickhouse') : undefined;
  const duck = engines.includes('duckdb') ? await engineRun(ctx, 'duckdb') : undefined;
  const account = crypto.randomUUID();
  const own = {
    shape: shapeFor(
      ctx,
      account,
      Array.from({ length: ctx.checks }, () => crypto.randomUUID()),
    ),
    hot: shapeFor(ctx, account, [crypto.randomUUID()], ctx.hotRows),
  };
  const source = ch ?? duck ?? own;
  const chdb = engines.includes('chdb')
    ? await chdbRun({
        count: ctx.cells.length,
        iterations: ctx.iterations,
        endMs: ctx.endMs,
        *batches() {
          for (const [set, rows] of [
            [source.shape, ctx.rows],
            [source.hot, ctx.hotRows],
          ] as const)
            for (let from = 0; from < rows; from += 50_000) yield makeResults(set, from, Math.min(50_000, rows - from));
        },
        request: (c, i) => {
          const cell = ctx.cells[c]!;
          const checkId = cell.hot ? source.hot.checkIds[0]! : source.shape.checkIds[checkIndex(ctx.checks, c, 1, i)]!;
          return { params: params(cell, ctx.endMs, i), accountId: source.shape.accountId, checkId };
        },
        label: (c) => `${ctx.cells[c]!.metrics.length} metrics ${ctx.cells[c]!.label}`,
      })
    : undefined;
  const pg = engines.includes('postgres') ? await postgresRun(ctx, source.shape, source.hot) : undefined;

  const cellOf = (s: Summary | undefined) => (s ? `${s.p50} / ${s.p99}` : '');
  const rows = ctx.cells.map((cell, c) => {
    const a = ch?.timings[c];
    const d = duck?.timings[c];
    const p = pg?.timings[c];
    return [
      cell.window,
      cell.metrics.length,
      cell.label,
      cellOf(a?.api),
      cellOf(a?.raw),
      a ? ratio(a.api.p50, a.raw.p50) : '',
      cellOf(d?.api),
      cellOf(d?.raw),
      d ? ratio(d.api.p50, d.raw.p50) : '',
      cellOf(chdb?.timings[c]),
      cellOf(p),
      p && a ? ratio(p.p50, a.api.p50) : '',
      p && d ? ratio(p.p50, d.api.p50) : '',
    ];
  });
  printTable(
    `analytics: ${ctx.rows} results, ${ctx.checks} checks × ${LOCATIONS.length} locations over 30 days; one check per query; p50 / p99 ms over ${ctx.iterations} runs`,
    [
      'window',
      'metrics',
      'shape',
      'CH API',
      'CH raw',
      'CH overhead',
      'DuckDB API',
      'DuckDB raw',
      'DuckDB overhead',
      'chdb reader',
      'PostgreSQL',
      'PG ÷ CH API',
      'PG ÷ DuckDB API',
    ],
    rows,
  );
  printTable(
    'issue 26 analytics targets (p50 ms; ClickHouse and DuckDB through the API with the HTTP client in its own process, chdb through the reader)',
    ['engine', 'query', 'p50 ms', 'PostgreSQL p50 ms', 'PG ÷ engine', 'target', 'verdict'],
    verdictRows(
      ctx.cells,
      {
        'ClickHouse 18.16': ch && ((c) => ch.timings[c]?.api),
        chdb: chdb && ((c) => chdb.timings[c]),
        DuckDB: duck && ((c) => duck.timings[c]?.api),
      },
      pg && ((c) => pg.timings[c]),
    ),
  );
  const readerRuns = [
    ['ClickHouse', ch?.readers],
    ['DuckDB', duck?.readers],
  ] as const;
  if (readerRuns.some(([, r]) => r !== undefined))
    printTable(
      `readers under concurrency: ${ctx.readers?.dashboards} dashboards × ${ctx.readers?.checksPerDashboard} checks, polled every ${ctx.readers?.pollMs} ms for ${ctx.readers?.seconds} s (24 h, hourly, 3 metrics; through the API)`,
      ['engine', 'requests', 'req/s', 'errors', 'p50 ms', 'p99 ms', 'cache hit rate'],
      readerRuns.flatMap(([name, r]) =>
        r ? [[name, r.requests, r.perSecond, r.errors, r.latency.p50, r.latency.p99, r.hitRate]] : [],
      ),
    );
  writeResults('analytics-matrix', {
    readers: { clickhouse: ch?.readers, duckdb: duck?.readers },
    options: {
      rows: ctx.rows,
      checks: ctx.checks,
      busyCheckRows: ctx.hotRows,
      locations: LOCATIONS.length,
      iterations: ctx.iterations,
      quick: values.quick,
    },
    loadSeconds: {
      clickhouse: ch?.loadSeconds,
      duckdb: duck?.loadSeconds,
      chdb: chdb?.loadSeconds,
      postgres: pg?.loadSeconds,
    },
    growth: values.growth ? await runGrowth(growthOptions()) : undefined,
    cells: ctx.cells.map((cell, c) => ({
      window: cell.window,
      busyCheck: cell.hot,
      metrics: cell.metrics,
      intervalMinutes: cell.interval,
      groupBy: cell.groupBy ? 'runLocation' : null,
      clickhouse: ch?.timings[c],
      duckdb: duck?.timings[c],
      chdb: chdb?.timings[c],
      postgres: pg?.timings[c],
    })),
  });
}
