/**
 * The ceiling of `npm run bench -- ingest --kafka-ceiling`: the least a Kafka → ClickHouse
 * pipeline can do, run as its own process like the ingestor. A kafkajs consumer with the bus's
 * fetch settings and the ingestor's partitions handled at once, which inserts each batch kafkajs hands it (the
 * batch sizes it naturally gets) into the very table Vigil writes (same row mapping, JSONEachRow,
 * @clickhouse/client with the adapter's settings), then commits that batch's offsets. No
 * validation, no registry look-up, no dead letters, no group commit, no rollup maintenance.
 *
 * Env: KAFKA_BROKERS, TOPIC, GROUP, CLICKHOUSE_URL, CLICKHOUSE_DATABASE, CONCURRENCY.
 * On SIGTERM it prints `stats {"inserts":…,"rows":…}` and exits.
 */
import { createClient } from '@clickhouse/client';
import kafkajs from 'kafkajs';
import { formatDateTime, toResultRow } from '#analytics';
import type { CheckResult } from '#domain';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const clickhouse = createClient({
  url: env('CLICKHOUSE_URL'),
  database: env('CLICKHOUSE_DATABASE'),
  compression: { request: false, response: false },
  keep_alive: { enabled: true, idle_socket_ttl: 2_000, eagerly_destroy_stale_sockets: true },
});
const kafka = new kafkajs.Kafka({
  clientId: 'vigil-bench-ceiling',
  brokers: env('KAFKA_BROKERS').split(','),
  logLevel: kafkajs.logLevel.NOTHING,
});
// The fetch settings of libs/bus/kafka-consumer.ts and createKafkaBus, so fetches are the same size.
const consumer = kafka.consumer({
  groupId: env('GROUP'),
  sessionTimeout: 10_000,
  heartbeatInterval: 1_000,
  maxWaitTimeInMs: 500,
  maxBytesPerPartition: 8 * 1024 * 1024,
  maxBytes: 32 * 1024 * 1024,
});
const stats = { inserts: 0, rows: 0 };

await consumer.connect();
await consumer.subscribe({ topics: [env('TOPIC')], fromBeginning: true });
await consumer.run({
  autoCommit: true,
  autoCommitThreshold: 1,
  eachBatchAutoResolve: false,
  partitionsConsumedConcurrently: Number(env('CONCURRENCY')),
  async eachBatch({ batch, resolveOffset, commitOffsetsIfNecessary }) {
    if (batch.messages.length === 0) return;
    const rows = batch.messages.map((message) => {
      const row = toResultRow(JSON.parse(message.value!.toString('utf8')) as CheckResult);
      return { ...row, started_at: formatDateTime(row.started_at) };
    });
    await clickhouse.insert({ table: 'check_results', values: rows, format: 'JSONEachRow' });
    stats.inserts += 1;
    stats.rows += rows.length;
    resolveOffset(batch.messages[batch.messages.length - 1]!.offset);
    await commitOffsetsIfNecessary();
  },
});
console.log('ready');

process.once('SIGTERM', () => {
  void (async () => {
    await consumer.disconnect().catch(() => undefined);
    await clickhouse.close();
    console.log(`stats ${JSON.stringify(stats)}`);
    process.exit(0);
  })();
});
