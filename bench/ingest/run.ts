/**
 * Ingestion: N results through POST /v1/check-results (batches of 10,000, a few concurrent
 * clients), on two paths:
 * - kafka: the API (standalone process, apps api+projector, Redis state) publishes to Kafka; the
 *   ingestor runs as its own process (apps/ingestor/src/main.ts, as in production) into ClickHouse.
 *   End to end = first send → last row visible in ClickHouse; lag = per batch, send → all its
 *   rows visible (polled every 100 ms, so ±100 ms).
 * - embedded: the standalone process on its embedded adapters (SQLite, DuckDB): the API writes
 *   DuckDB before answering 202, so visible = answered.
 * Ceiling, same run: the same rows straight into ClickHouse over HTTP, 100,000 per INSERT
 * (JSONEachRow), sequential, no Vigil code in the way.
 *
 * - direct: no HTTP. The bench produces the same records straight to Kafka (as internal
 *   high-volume producers do), then ingestor → ClickHouse as above.
 * --ingestors 1,2 runs the Kafka paths with that many ingestor processes in one consumer group;
 * --partitions 6,12,24 repeats them per topic partition count.
 *
 *   npm run bench -- ingest [--n 1000000] [--batch 10000] [--clients 4] [--checks 100]
 *                           [--paths ceiling,kafka,direct,embedded] [--partitions 12] [--ingest-batch 5000]
 *                           [--ingestors 1,2] [--live] [--cpu-prof]
 *   npm run bench -- ingest --compare-backfill [--paths embedded,direct] [--n 200000]: each path twice
 *   in one run, live results then a backfill of closed hours, and backfill ÷ live (target ≥ 0.6).
 *   npm run bench -- ingest --kafka-ceiling [--n 500000] [--hold-minutes 3] [--hold-rate R]: the
 *   ingestor against a minimal kafkajs → ClickHouse pipeline, same run (see kafka-ceiling.ts).
 * --live: results of the current hour (as runners send them) instead of one past hour per batch
 * (a backfill, which re-rolls that hour's rollups on each insert); see batchSlots.
 * Each row prints the CPU time of the Vigil processes under test per result (all threads, from
 * /proc), which moves less with the neighbours than the rate.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import kafkajs from 'kafkajs';
import { createDuckDbAnalyticsStore, createClickHouseAnalyticsStore, formatDateTime, toResultRow } from '#analytics';
import { topics } from '#bus';
import { createLogger } from '#core';
import { benchConfig } from '../config.ts';
import { freePort, repoRoot, spawnTs, waitForHttp } from '../support/processes.ts';
import { log, printMachine, printTable, writeResults } from '../support/report.ts';
import { makeResults, randomHex8, type Shape } from '../support/results.ts';
import { cleanUp, clickhouse, clickhouseRows, runSuffix } from '../support/services.ts';
import { ratio, round, sleep, summarise, type Summary } from '../support/stats.ts';
import { createAccount, createChecks, ENCRYPTION_KEY, spawnVigil } from '../support/vigil.ts';
import { cpuMeter, moment, printGrowthTable } from './cost.ts';
import { runKafkaCeiling } from './kafka-ceiling.ts';

const HOUR = 3_600_000;
const PRODUCE_PIECE = 2_000;
const BASE_MS = Date.UTC(2026, 0, 5);
const silent = createLogger({ level: 'silent' });

interface Options {
  n: number;
  batch: number;
  clients: number;
  checks: number;
  nodeArgs: string[];
  /** KAFKA_TOPIC_PARTITIONS and VIGIL_INGEST_BATCH_SIZE for the kafka path; empty = the apps' defaults. */
  partitions: string;
  ingestBatch: string;
  /** Ingestor processes in the consumer group (each its own process, as replicas run). */
  ingestors: number;
  /** Embedded path: results start in the current hour, as a runner sends them, instead of a past hour per batch. */
  live: boolean;
}

interface PathResult {
  path: string;
  results: number;
  acceptRate: number;
  endToEndRate: number;
  seconds: number;
  lag: Summary;
  accept: Summary;
  stored: number;
  partitions?: string;
  ingestors?: number;
  /** CPU of the Vigil processes (API, ingestors; all their threads) per result, µs. */
  cpuUsPerResult?: number;
  cpuUsPerResultByProcess?: Record<string, number>;
  /** HTTP answers 503 (Kafka past the ingest deadline), each batch sent again after Retry-After. */
  answered503?: number;
  at: string;
  load: number[];
}

/**
 * Batch b holds results b*batch … and a time slot of its own, so its rows can be counted apart:
 * - past (the default): hour b after BASE_MS. Every batch is then a backfill of a closed hour,
 *   which the insert follows with a re-roll of that hour's rollups;
 * - live (--live): a slice b of the current hour so far, as runners send results, so no insert
 *   re-rolls (unless the hour turns during the run).
 */
function batchSlots(o: Options) {
  const batches = Math.ceil(o.n / o.batch);
  if (!o.live) return { baseMs: BASE_MS, slotMs: HOUR };
  const hourStart = Math.floor(Date.now() / HOUR) * HOUR;
  return { baseMs: hourStart, slotMs: Math.max(1, Math.floor((Date.now() - hourStart) / batches)) };
}

function shapeFor(o: Options, accountId: string, checkIds: string[], { baseMs, slotMs } = batchSlots(o)): Shape {
  const step = slotMs / o.batch;
  return {
    accountId,
    checkIds,
    idPrefix: randomHex8(),
    startedMs: (i) => baseMs + Math.floor(i / o.batch) * slotMs + Math.floor((i % o.batch) * step),
  };
}

/** Sends every batch with `clients` concurrent senders; returns per batch when it was sent and answered. */
async function send(o: Options, url: string, ingestKey: string, shape: Shape) {
  const batches = Math.ceil(o.n / o.batch);
  const sentAt: number[] = new Array(batches);
  const ackedAt: number[] = new Array(batches);
  let next = 0;
  let unavailable = 0;
  const sender = async () => {
    while (next < batches) {
      const b = next++;
      const count = Math.min(o.batch, o.n - b * o.batch);
      const body = JSON.stringify(makeResults(shape, b * o.batch, count));
      sentAt[b] = performance.now();
      const post = () =>
        fetch(`${url}/v1/check-results`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ingestKey}`, 'content-type': 'application/json' },
          body,
        });
      // A pooled connection can be reset under heavy load; the batch is idempotent (result ids), so
      // it is sent again once, and said so.
      const attempt = () =>
        post().catch((error: unknown) => {
          log(
            `batch ${b}: ${error instanceof Error ? String(error.cause ?? error.message) : String(error)}; sending again`,
          );
          return post();
        });
      let response = await attempt();
      // 503 + Retry-After is the API's answer when Kafka did not acknowledge within its deadline:
      // a client sends the batch again after that long, as the runner does. Counted, and the
      // batch's lag still runs from its first send.
      for (let tries = 1; response.status === 503 && tries <= 30; tries++) {
        await response.arrayBuffer();
        unavailable += 1;
        await sleep(1000 * (Number(response.headers.get('retry-after')) || 1));
        response = await attempt();
      }
      const answer = (await response.json()) as { accepted?: number; rejected?: { message: string }[] };
      ackedAt[b] = performance.now();
      if (response.status !== 202 || answer.accepted !== count)
        throw new Error(`batch ${b}: ${response.status} ${JSON.stringify(answer).slice(0, 400)}`);
    }
  };
  await Promise.all(Array.from({ length: o.clients }, sender));
  if (unavailable > 0) log(`${unavailable} answers were 503 (sent again after Retry-After)`);
  return { sentAt, ackedAt, unavailable };
}

/**
 * The path internal high-volume producers take: no HTTP, the same v1 records straight onto the
 * topic (key = checkId), one produce per batch, `clients` in flight, with an idempotent producer.
 */
async function produce(o: Options, topic: string, shape: Shape) {
  const kafka = new kafkajs.Kafka({
    clientId: 'vigil-bench-producer',
    brokers: benchConfig.kafkaBrokers.split(','),
    logLevel: kafkajs.logLevel.NOTHING,
  });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const batches = Math.ceil(o.n / o.batch);
  const sentAt: number[] = new Array(batches);
  const ackedAt: number[] = new Array(batches);
  let next = 0;
  try {
    const sender = async () => {
      while (next < batches) {
        const b = next++;
        const count = Math.min(o.batch, o.n - b * o.batch);
        const messages = makeResults(shape, b * o.batch, count).map((result) => ({
          key: result.checkId,
          value: JSON.stringify(result),
        }));
        sentAt[b] = performance.now();
        // In pieces: with few partitions a batch's share of one partition can pass the broker's
        // 1 MB message.max.bytes (keys hash unevenly), which the broker refuses.
        for (let from = 0; from < messages.length; from += PRODUCE_PIECE)
          await producer.send({ topic, messages: messages.slice(from, from + PRODUCE_PIECE), acks: -1 });
        ackedAt[b] = performance.now();
      }
    };
    await Promise.all(Array.from({ length: o.clients }, sender));
  } finally {
    await producer.disconnect();
  }
  return { sentAt, ackedAt, unavailable: 0 };
}

function summary(
  path: string,
  o: Options,
  sentAt: number[],
  ackedAt: number[],
  visibleAt: number[],
  stored: number,
  cpu: Record<string, number> = {},
): PathResult {
  const first = Math.min(...sentAt);
  const seconds = (Math.max(...visibleAt) - first) / 1000;
  const perResult = (s: number) => Math.round((s * 1e6) / o.n);
  const cpuTotal = Object.values(cpu).reduce((a, b) => a + b, 0);
  return {
    ...moment(),
    ...(Object.keys(cpu).length > 0
      ? {
          cpuUsPerResult: perResult(cpuTotal),
          cpuUsPerResultByProcess: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, perResult(v)])),
        }
      : {}),
    path,
    results: o.n,
    acceptRate: Math.round(o.n / ((Math.max(...ackedAt) - first) / 1000)),
    endToEndRate: Math.round(o.n / seconds),
    seconds: round(seconds, 2),
    lag: summarise(visibleAt.map((at, b) => at - sentAt[b]!)),
    accept: summarise(ackedAt.map((at, b) => at - sentAt[b]!)),
    stored,
  };
}

async function kafkaPath(o: Options, direct: boolean): Promise<PathResult> {
  const suffix = runSuffix();
  const names = {
    database: `vigil_bench_ingest_${suffix}`,
    topicPrefix: `bench${suffix}.`,
    redisPrefix: `vigil-bench-${suffix}:`,
  };
  const env = {
    REDIS_URL: benchConfig.redisUrl,
    REDIS_KEY_PREFIX: names.redisPrefix,
    KAFKA_BROKERS: benchConfig.kafkaBrokers,
    KAFKA_TOPIC_PREFIX: names.topicPrefix,
    CLICKHOUSE_URL: benchConfig.clickhouseUrl,
    CLICKHOUSE_DATABASE: names.database,
    ...(o.partitions ? { KAFKA_TOPIC_PARTITIONS: o.partitions } : {}),
    ...(o.ingestBatch ? { VIGIL_INGEST_BATCH_SIZE: o.ingestBatch } : {}),
  };
  const vigil = await spawnVigil({ ...env, VIGIL_STANDALONE_APPS: 'api,projector' }, o.nodeArgs);
  const ingestors = [];
  for (let i = 0; i < o.ingestors; i++) {
    const opsPort = await freePort();
    const child = spawnTs(
      'apps/ingestor/src/main.ts',
      {
        ...env,
        DATA_DIR: vigil.dataDir,
        PORT: String(opsPort),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        VIGIL_ENCRYPTION_KEY: ENCRYPTION_KEY,
      },
      o.nodeArgs,
    );
    ingestors.push({ child, opsPort });
  }
  const ingestor = ingestors[0]!.child;
  try {
    for (const { child, opsPort } of ingestors) await waitForHttp(`http://127.0.0.1:${opsPort}/ready`, child);
    const account = await createAccount(vigil.url, vigil.adminKey);
    const slots = batchSlots(o);
    const shape = shapeFor(o, account.accountId, await createChecks(account.owner, o.checks, ['eu-west-1']), slots);
    const pids = ingestors.map(({ child }) => child.pid).join(', ');
    log(
      `kafka${direct ? ' (direct)' : ''}: API pid ${vigil.process.pid}, ingestor pids ${pids}; sending ${o.n} results`,
    );

    const batches = Math.ceil(o.n / o.batch);
    const visibleAt: number[] = new Array(batches);
    let sending = true;
    const poll = (async () => {
      let seen = 0;
      let lastProgress = performance.now();
      while (seen < batches) {
        const rows = await clickhouseRows<{ b: number; n: number }>(
          `SELECT intDiv(started_ms - ${slots.baseMs}, ${slots.slotMs}) AS b, count() AS n FROM ${names.database}.check_results GROUP BY b`,
        ).catch(() => []);
        const now = performance.now();
        for (const row of rows) {
          const b = Number(row.b);
          const want = Math.min(o.batch, o.n - b * o.batch);
          if (visibleAt[b] === undefined && Number(row.n) >= want) {
            visibleAt[b] = now;
            seen++;
            lastProgress = now;
          }
        }
        if (!sending && now - lastProgress > 120_000)
          throw new Error(
            `no progress for 2 minutes; ${seen}/${batches} batches visible (${JSON.stringify(rows)})\n${ingestor.output()}`,
          );
        await sleep(100);
      }
    })();
    const meter = cpuMeter([vigil.process.pid, ...ingestors.map(({ child }) => child.pid)]);
    const sent = direct
      ? await produce(o, `${names.topicPrefix}${topics.checkResults}`, shape)
      : await send(o, vigil.url, vigil.ingestKey, shape).catch((error: unknown) => {
          // The API's own account of what went wrong, beside the client's.
          throw new Error(`${String(error)}\nAPI output:\n${vigil.process.output().slice(-4000)}`);
        });
    const { sentAt, ackedAt } = sent;
    sending = false;
    log(`kafka: all accepted; waiting for ClickHouse`);
    await poll;
    const [apiCpu, ...ingestorCpu] = meter.read();
    const cpu = { ...(direct ? {} : { api: apiCpu! }), ingestors: ingestorCpu.reduce((a, b) => a + b, 0) };
    const [final] = await clickhouseRows<{ n: number }>(
      `SELECT count() AS n FROM ${names.database}.check_results FINAL`,
    );
    const topic = o.partitions ? ` (${o.partitions} partitions)` : '';
    const path = `${direct ? 'producer' : 'HTTP'} → Kafka${topic} → ${o.ingestors} ingestor${o.ingestors > 1 ? 's' : ''} → ClickHouse${o.live ? ', live results' : ''}`;
    return {
      ...summary(path, o, sentAt, ackedAt, visibleAt, Number(final?.n), cpu),
      partitions: o.partitions,
      ingestors: o.ingestors,
      answered503: sent.unavailable,
    };
  } finally {
    for (const { child } of ingestors) await child.stop();
    await vigil.stop();
    await cleanUp(names);
  }
}

async function embeddedPath(o: Options): Promise<PathResult> {
  const vigil = await spawnVigil({ VIGIL_STANDALONE_APPS: 'api,projector' }, o.nodeArgs);
  let stopped = false;
  try {
    const account = await createAccount(vigil.url, vigil.adminKey);
    const shape = shapeFor(o, account.accountId, await createChecks(account.owner, o.checks, ['eu-west-1']));
    log(`embedded: Vigil pid ${vigil.process.pid}; sending ${o.n} ${o.live ? 'live' : 'past-hour'} results`);
    const meter = cpuMeter([vigil.process.pid]);
    const { sentAt, ackedAt, unavailable } = await send(o, vigil.url, vigil.ingestKey, shape);
    const [vigilCpu] = meter.read();
    await vigil.stop({ keepData: true });
    stopped = true;
    // The file is free once the process is gone: count what it stored.
    const duck = createDuckDbAnalyticsStore({ path: join(vigil.dataDir, 'analytics.duckdb'), log: silent });
    const stored = await duck.countResults();
    await duck.close();
    const path = `HTTP → DuckDB (embedded)${o.live ? ', live results' : ''}`;
    return { ...summary(path, o, sentAt, ackedAt, ackedAt, stored, { vigil: vigilCpu! }), answered503: unavailable };
  } finally {
    if (!stopped) await vigil.stop({ keepData: true });
    const { rmSync } = await import('node:fs');
    rmSync(vigil.dataDir, { recursive: true, force: true });
  }
}

/** The same rows as the HTTP paths, straight into the same table schema, 100,000 per INSERT. */
async function ceiling(o: Options, perInsert: number): Promise<PathResult> {
  const database = `vigil_bench_ceiling_${runSuffix()}`;
  const store = createClickHouseAnalyticsStore({ url: benchConfig.clickhouseUrl, database, log: silent });
  await store.migrate(); // creates the very table Vigil writes
  await store.close();
  const shape = shapeFor(
    o,
    randomUUID(),
    Array.from({ length: o.checks }, () => randomUUID()),
  );
  try {
    const started = performance.now();
    const sentAt: number[] = [];
    const doneAt: number[] = [];
    for (let from = 0; from < o.n; from += perInsert) {
      const rows = makeResults(shape, from, Math.min(perInsert, o.n - from));
      const body = rows.map((result) => {
        const row = toResultRow(result);
        return JSON.stringify({ ...row, started_at: formatDateTime(row.started_at) });
      });
      sentAt.push(performance.now());
      await clickhouse(`INSERT INTO ${database}.check_results FORMAT JSONEachRow`, body.join('\n'));
      doneAt.push(performance.now());
    }
    const [final] = await clickhouseRows<{ n: number }>(`SELECT count() AS n FROM ${database}.check_results FINAL`);
    const seconds = (performance.now() - started) / 1000;
    const perInsertMs = summarise(doneAt.map((at, i) => at - sentAt[i]!));
    return {
      ...moment(),
      path: `ceiling: ClickHouse HTTP INSERT, ${perInsert} rows each`,
      results: o.n,
      acceptRate: Math.round(o.n / seconds),
      endToEndRate: Math.round(o.n / seconds),
      seconds: round(seconds, 2),
      lag: perInsertMs,
      accept: perInsertMs,
      stored: Number(final?.n),
    };
  } finally {
    await cleanUp({ database });
  }
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      n: { type: 'string', default: '1000000' },
      batch: { type: 'string', default: '10000' },
      clients: { type: 'string', default: '4' },
      checks: { type: 'string', default: '100' },
      'ceiling-batch': { type: 'string', default: '100000' },
      paths: { type: 'string', default: 'ceiling,kafka,embedded' },
      'cpu-prof': { type: 'boolean', default: false },
      partitions: { type: 'string', default: '' },
      'ingest-batch': { type: 'string', default: '' },
      ingestors: { type: 'string', default: '1' },
      live: { type: 'boolean', default: false },
      'compare-backfill': { type: 'boolean', default: false },
      'kafka-ceiling': { type: 'boolean', default: false },
      'hold-minutes': { type: 'string', default: '3' },
      'hold-rate': { type: 'string' },
    },
  });
  if (values['kafka-ceiling'])
    return runKafkaCeiling({
      n: argv.includes('--n') ? Number(values.n) : 500_000,
      checks: Number(values.checks),
      partitions: values.partitions,
      holdMinutes: Number(values['hold-minutes']),
      holdRate: values['hold-rate'] ? Number(values['hold-rate']) : undefined,
      cpuProf: values['cpu-prof'],
    });
  const profiles = join(repoRoot, 'bench', 'results', 'profiles');
  const o: Options = {
    n: Number(values.n),
    batch: Number(values.batch),
    clients: Number(values.clients),
    checks: Number(values.checks),
    nodeArgs: values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : [],
    partitions: values.partitions,
    ingestBatch: values['ingest-batch'],
    ingestors: 1,
    live: values.live,
  };
  printMachine();
  const paths = values.paths.split(',');
  if (values['compare-backfill']) return compareBackfill(o, paths);
  const results: PathResult[] = [];
  if (paths.includes('ceiling')) {
    log(`ceiling: ${o.n} rows straight into ClickHouse`);
    results.push(await ceiling(o, Number(values['ceiling-batch'])));
  }
  // --ingestors 1,2 runs each Kafka path once per count: the "how cost grows" rows.
  // --partitions 6,12,24 does the same per partition count (topics are fresh per run).
  for (const partitions of values.partitions.split(','))
    for (const ingestors of values.ingestors.split(',').map(Number)) {
      if (paths.includes('kafka')) results.push(await kafkaPath({ ...o, partitions, ingestors }, false));
      if (paths.includes('direct')) results.push(await kafkaPath({ ...o, partitions, ingestors }, true));
    }
  if (paths.includes('embedded')) results.push(await embeddedPath(o));

  const top = results.find((r) => r.path.startsWith('ceiling'));
  printTable(
    `ingest: ${o.n} results, batches of ${o.batch}, ${o.clients} clients, ${o.checks} checks`,
    [
      'path',
      'stored',
      'accepted/s',
      'end-to-end/s',
      'vs ceiling',
      'lag p50 ms',
      'lag p90',
      'lag p99',
      'lag max',
      'answer p50 ms',
      'answer p99',
      'CPU µs/result',
      'load (1 min)',
    ],
    results.map((r) => [
      r.path,
      r.stored,
      r.acceptRate,
      r.endToEndRate,
      top ? ratio(r.endToEndRate, top.endToEndRate) : '',
      r.lag.p50,
      r.lag.p90,
      r.lag.p99,
      r.lag.max,
      r.accept.p50,
      r.accept.p99,
      r.cpuUsPerResult ?? '',
      r.load[0],
    ]),
  );
  // How cost grows: one cell per (partitions, ingestors) of each Kafka path.
  for (const kind of ['HTTP', 'producer']) {
    const cells = results
      .filter((r) => r.ingestors !== undefined && r.path.startsWith(kind))
      .map((r) => ({
        partitions: r.partitions ?? '',
        ingestors: r.ingestors!,
        endToEndRate: r.endToEndRate,
        lagP99: r.lag.p99,
        cpuUsPerResult: r.cpuUsPerResult,
        load: r.load,
      }));
    if (cells.length > 1)
      printGrowthTable(
        `how cost grows: ${kind} → Kafka → ClickHouse, end-to-end results/s (ratio to the ceiling), against partitions × ingestor processes`,
        cells,
        top?.endToEndRate,
      );
  }
  for (const r of results)
    if (r.stored !== r.results) console.log(`WARNING: ${r.path} stored ${r.stored} of ${r.results}`);
  writeResults('ingest', {
    options: { ...o, ceilingBatch: Number(values['ceiling-batch']) },
    ceilingRate: top?.endToEndRate,
    results,
  });
}

/** Issue 26's backfill row: each path live, then into closed hours, in one run; the ratio of their rates. */
async function compareBackfill(o: Options, paths: string[]): Promise<void> {
  const rows: (string | number)[][] = [];
  const runs: PathResult[] = [];
  for (const name of paths) {
    const once = (live: boolean) => {
      const options = { ...o, live };
      if (name === 'embedded') return embeddedPath(options);
      if (name === 'kafka' || name === 'direct') return kafkaPath(options, name === 'direct');
      throw new Error(`--compare-backfill: no path ${name} (embedded, kafka, direct)`);
    };
    const live = await once(true);
    const backfill = await once(false);
    runs.push(live, backfill);
    const r = ratio(backfill.endToEndRate, live.endToEndRate);
    rows.push([
      name,
      live.endToEndRate,
      live.cpuUsPerResult ?? '',
      backfill.endToEndRate,
      backfill.cpuUsPerResult ?? '',
      r,
      Number(r) >= 0.6 ? 'met' : 'missed',
      `${live.load[0]} / ${backfill.load[0]}`,
    ]);
  }
  printTable(
    `ingest: backfill into closed hours ÷ live results, ${o.n} results each, batches of ${o.batch}, ${o.clients} clients, ${o.checks} checks (target ≥ 0.6)`,
    ['path', 'live/s', 'live CPU µs', 'backfill/s', 'backfill CPU µs', 'backfill ÷ live', 'target', 'load (1 min)'],
    rows,
  );
  for (const r of runs)
    if (r.stored !== r.results) console.log(`WARNING: ${r.path} stored ${r.stored} of ${r.results}`);
  writeResults('ingest-backfill', { options: o, results: runs });
}
