/**
 * `npm run bench -- ingest --kafka-ceiling [--n 500000] [--checks 100] [--partitions 12]
 *  [--hold-minutes 3] [--hold-rate R] [--cpu-prof]`: issue 26 target 3 in one run.
 *
 * 1. A backlog of n live check results (the current time, valid, for checks Vigil knows) goes
 *    onto a fresh check-results topic before any consumer runs.
 * 2. Ceiling: the minimal pipeline (minimal-consumer.ts, its own process, its own group) drains
 *    that topic into a ClickHouse database of its own with Vigil's table.
 * 3. Vigil's ingestor (apps/ingestor/src/main.ts, its own process) drains the same topic, the
 *    same records, into its database. Rate and CPU per result for both come from the committed
 *    offsets and /proc over the same kind of window (kafka-load.ts: drain).
 * 4. Hold: an open-loop producer at half the ingestor's measured rate for --hold-minutes; lag from
 *    each 100 ms tick's scheduled time to the commit of its last record (kafka-load.ts: holdRate).
 * Targets: ingestor rate ≥ 0.7 × ceiling, CPU per result ≤ 1.5 × ceiling, hold lag p99 ≤ 2 s.
 */
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { createClickHouseAnalyticsStore } from '#analytics';
import { topics } from '#bus';
import { createLogger } from '#core';
import { INGESTOR_PARTITIONS_CONCURRENTLY } from '../../apps/ingestor/src/ingestor.ts';
import { benchConfig } from '../config.ts';
import { freePort, repoRoot, spawnTs, waitForHttp } from '../support/processes.ts';
import { log, printMachine, printTable, writeResults } from '../support/report.ts';
import { makeResults, randomHex8, type Shape } from '../support/results.ts';
import { cleanUp, clickhouseRows, runSuffix } from '../support/services.ts';
import { ratio } from '../support/stats.ts';
import { createAccount, createChecks, ENCRYPTION_KEY, spawnVigil } from '../support/vigil.ts';
import { moment } from './cost.ts';
import { drain, holdRate, produceBacklog, recordTexts } from './kafka-load.ts';

export interface CeilingOptions {
  n: number;
  checks: number;
  partitions: string;
  holdMinutes: number;
  holdRate?: number;
  cpuProf: boolean;
}

/** Live records: startedAt is when they are built, so no insert re-rolls a closed hour. */
function liveRecords(shape: Omit<Shape, 'startedMs'>) {
  return (from: number, count: number) => {
    const now = Date.now();
    return makeResults({ ...shape, startedMs: () => now }, from, count);
  };
}

async function rowsIn(database: string): Promise<number> {
  const [row] = await clickhouseRows<{ n: number }>(`SELECT count() AS n FROM ${database}.check_results FINAL`);
  return Number(row?.n ?? 0);
}

export async function runKafkaCeiling(o: CeilingOptions): Promise<void> {
  printMachine();
  const suffix = runSuffix();
  const names = {
    database: `vigil_bench_kc_${suffix}`,
    topicPrefix: `benchkc${suffix}.`,
    redisPrefix: `vigil-bench-kc-${suffix}:`,
  };
  const ceilingDb = `vigil_bench_kcc_${suffix}`;
  const topic = names.topicPrefix + topics.checkResults;
  const nodeArgs = o.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${join(repoRoot, 'bench', 'results', 'profiles')}`] : [];
  const env = {
    REDIS_URL: benchConfig.redisUrl,
    REDIS_KEY_PREFIX: names.redisPrefix,
    KAFKA_BROKERS: benchConfig.kafkaBrokers,
    KAFKA_TOPIC_PREFIX: names.topicPrefix,
    CLICKHOUSE_URL: benchConfig.clickhouseUrl,
    CLICKHOUSE_DATABASE: names.database,
    ...(o.partitions ? { KAFKA_TOPIC_PARTITIONS: o.partitions } : {}),
  };
  const kafka = new kafkajs.Kafka({
    clientId: 'vigil-bench-kc',
    brokers: benchConfig.kafkaBrokers.split(','),
    logLevel: kafkajs.logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  // The API creates the topics (with the partitions the apps use) and the checks the records name.
  const vigil = await spawnVigil({ ...env, VIGIL_STANDALONE_APPS: 'api,projector' });
  const children: { stop(): Promise<void> }[] = [];
  try {
    const account = await createAccount(vigil.url, vigil.adminKey);
    const checkIds = await createChecks(account.owner, o.checks, ['eu-west-1']);
    const records = liveRecords({ accountId: account.accountId, checkIds, idPrefix: randomHex8() });
    const partitionCount = (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]!.partitions.length;
    log(`kafka-ceiling: producing a backlog of ${o.n} records onto ${topic} (${partitionCount} partitions)`);
    await produceBacklog(kafka, topic, records, o.n);

    const store = createClickHouseAnalyticsStore({
      url: benchConfig.clickhouseUrl,
      database: ceilingDb,
      log: createLogger({ level: 'silent' }),
    });
    await store.migrate(); // the very table Vigil writes
    await store.close();
    const ceilingGroup = `bench-ceiling-${suffix}`;
    const minimal = spawnTs(
      'bench/ingest/minimal-consumer.ts',
      {
        KAFKA_BROKERS: benchConfig.kafkaBrokers,
        TOPIC: topic,
        GROUP: ceilingGroup,
        CLICKHOUSE_URL: benchConfig.clickhouseUrl,
        CLICKHOUSE_DATABASE: ceilingDb,
        CONCURRENCY: String(INGESTOR_PARTITIONS_CONCURRENTLY),
      },
      nodeArgs,
    );
    children.push(minimal);
    log(`ceiling: minimal pipeline pid ${minimal.pid}, group ${ceilingGroup}`);
    const ceiling = { ...(await drain(admin, ceilingGroup, topic, o.n, minimal.pid)), ...moment() };
    await minimal.stop();
    const stats = JSON.parse(/stats (\{.*\})/.exec(minimal.output())?.[1] ?? '{}') as {
      inserts?: number;
      rows?: number;
    };

    const opsPort = await freePort();
    const ingestor = spawnTs(
      'apps/ingestor/src/main.ts',
      {
        ...env,
        DATA_DIR: vigil.dataDir,
        PORT: String(opsPort),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        VIGIL_ENCRYPTION_KEY: ENCRYPTION_KEY,
      },
      nodeArgs,
    );
    children.push(ingestor);
    const group = `${names.topicPrefix}vigil-ingestor`;
    log(`ingestor: pid ${ingestor.pid}, group ${group}`);
    const vigilDrain = { ...(await drain(admin, group, topic, o.n, ingestor.pid)), ...moment() };
    await waitForHttp(`http://127.0.0.1:${opsPort}/ready`, ingestor);
    const stored = { ceiling: await rowsIn(ceilingDb), ingestor: await rowsIn(names.database) };

    const texts = recordTexts(records, o.checks);
    const rate = o.holdRate ?? Math.round(vigilDrain.rate / 2);
    let hold;
    if (o.holdMinutes > 0) {
      log(`hold: ${rate} records/s open loop for ${o.holdMinutes} min into the ingestor`);
      hold = {
        ...(await holdRate(
          kafka,
          admin,
          { topic, groupId: group, rate, seconds: o.holdMinutes * 60, pid: ingestor.pid },
          (from, count, at) => texts(o.n + from, count, at),
        )),
        ...moment(),
      };
    }
    const storedAfterHold = await rowsIn(names.database);
    await ingestor.stop();

    const rateRatio = ratio(vigilDrain.rate, ceiling.rate);
    const cpuRatio = ratio(vigilDrain.cpuUsPerResult, ceiling.cpuUsPerResult);
    printTable(
      `ingest, Kafka (${partitionCount} partitions) → ClickHouse: a backlog of ${o.n} live results, then ${o.holdMinutes} min at half the ingestor's rate`,
      ['pipeline', 'stored', 'results/s', 'CPU µs/result', 'seconds', 'load (1/5/15)'],
      [
        [
          `ceiling: minimal kafkajs → ClickHouse (${stats.inserts ?? '?'} inserts, ${Math.round((stats.rows ?? 0) / (stats.inserts || 1))} rows each)`,
          stored.ceiling,
          ceiling.rate,
          ceiling.cpuUsPerResult,
          ceiling.seconds.toFixed(1),
          ceiling.load.join(' / '),
        ],
        [
          'Vigil ingestor',
          stored.ingestor,
          vigilDrain.rate,
          vigilDrain.cpuUsPerResult,
          vigilDrain.seconds.toFixed(1),
          vigilDrain.load.join(' / '),
        ],
      ],
    );
    const lines = [
      `rate: ingestor ÷ ceiling = ${rateRatio} (target ≥ 0.7: ${rateRatio >= 0.7 ? 'met' : 'MISSED'})`,
      `CPU per result: ingestor ÷ ceiling = ${cpuRatio} (target ≤ 1.5: ${cpuRatio <= 1.5 ? 'met' : 'MISSED'})`,
    ];
    if (hold) {
      const p99 = hold.lag.p99;
      lines.push(
        `hold: ${hold.rate}/s for ${hold.seconds} s (${hold.produced} records, ${hold.lateTicks} late ticks), lag p50 ${Math.round(hold.lag.p50)} ms, p90 ${Math.round(hold.lag.p90)} ms, p99 ${Math.round(p99)} ms, max ${Math.round(hold.lag.max)} ms (from each send's start: p50 ${Math.round(hold.lagFromSend.p50)}, p99 ${Math.round(hold.lagFromSend.p99)} ms; Kafka's ack p50 ${Math.round(hold.produceAck.p50)}, p99 ${Math.round(hold.produceAck.p99)} ms); ingestor CPU ${hold.cpuUsPerResult} µs/result, producer (this process) ${hold.producerCpuUsPerRecord} µs/record; load ${hold.load.join(' / ')}`,
        `lag p99 ≤ 2 s at half the maximum rate${o.holdMinutes < 3 ? ` (held ${o.holdMinutes} min; the target says 3)` : ''}: ${p99 <= 2000 ? 'met' : 'MISSED'}`,
      );
    }
    const expected = o.n + (hold?.produced ?? 0);
    if (stored.ceiling !== o.n) lines.push(`WARNING: the ceiling stored ${stored.ceiling} of ${o.n}`);
    if (storedAfterHold !== expected) lines.push(`WARNING: the ingestor stored ${storedAfterHold} of ${expected}`);
    for (const line of lines) console.log(line);
    writeResults('ingest-kafka-ceiling', {
      options: o,
      partitions: partitionCount,
      ceiling: { ...ceiling, ...stats },
      ingestor: vigilDrain,
      hold,
      rateRatio,
      cpuRatio,
      stored: { ...stored, afterHold: storedAfterHold },
    });
  } finally {
    for (const child of children) await child.stop();
    await vigil.stop();
    await admin.disconnect();
    await cleanUp(names);
    await cleanUp({ database: ceilingDb });
  }
}
