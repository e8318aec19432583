import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { createClickHouseAnalyticsStore, type AnalyticsStore } from '#analytics';
import { createKafkaBus, type MessageBus } from '#bus';
import { createLogger } from '#core';
import { services, uniqueSuffix } from './services.ts';
import { createAccount, startVigil, type TestVigil } from './vigil.ts';

const run = promisify(execFile);

export interface DistributedFixture {
  vigil: TestVigil;
  /** Environment that points an app process at the same Redis, Kafka, ClickHouse and names. */
  env: Record<string, string>;
  topics: { checkResults: string; checkResultsDlq: string; alertEvents: string };
  bus: MessageBus;
  clickhouse: AnalyticsStore;
  account: Awaited<ReturnType<typeof createAccount>>;
  checkIds: string[];
  stop(): Promise<void>;
}

/**
 * Vigil on the distributed adapters (Redis, Kafka, ClickHouse) with names unique to this run:
 * the API and projector run in-process; other apps are started by the test as processes.
 */
export async function startDistributed(options: { checks?: number; apps?: string } = {}): Promise<DistributedFixture> {
  const { REDIS_URL, KAFKA_BROKERS, CLICKHOUSE_URL } = services();
  const suffix = uniqueSuffix();
  const env: Record<string, string> = {
    REDIS_URL,
    REDIS_KEY_PREFIX: `vigil-test-${suffix}:`,
    KAFKA_BROKERS,
    KAFKA_TOPIC_PREFIX: `t${suffix}.`,
    KAFKA_TOPIC_PARTITIONS: '4',
    CLICKHOUSE_URL,
    CLICKHOUSE_DATABASE: `vigil_test_${suffix}`,
    LOG_LEVEL: 'warn',
    PORT: '0',
    VIGIL_ENCRYPTION_KEY: 'ab'.repeat(32),
  };
  const vigil = await startVigil({
    env: { ...env, LOG_LEVEL: 'silent', VIGIL_STANDALONE_APPS: options.apps ?? 'api,projector' },
  });
  env.DATA_DIR = vigil.dataDir; // the SQLite event store: the apps under test do not read it
  const log = createLogger({ level: 'silent' });
  const bus = createKafkaBus({ brokers: KAFKA_BROKERS.split(','), clientId: `test-${suffix}`, log });
  const clickhouse = createClickHouseAnalyticsStore({ url: CLICKHOUSE_URL, database: env.CLICKHOUSE_DATABASE!, log });
  const account = await createAccount(vigil);
  const checkIds: string[] = [];
  for (let i = 0; i < (options.checks ?? 20); i++) {
    const created = await account.owner.post('/v1/checks', {
      name: `check ${i}`,
      checkType: 'API',
      locations: ['eu-west-1'],
    });
    checkIds.push(created.body.id);
  }
  const topics = vigil.running.platform.topics;
  return {
    vigil,
    env,
    topics,
    bus,
    clickhouse,
    account,
    checkIds,
    async stop() {
      await bus.close();
      await clickhouse.query(`DROP DATABASE IF EXISTS ${env.CLICKHOUSE_DATABASE}`).catch(() => undefined);
      await clickhouse.close();
      await vigil.stop();
    },
  };
}

type Message = { key: string; value: string; headers?: Record<string, string> };

/**
 * Reads a topic from the beginning with a fresh group until `count` distinct messages arrived,
 * distinct by `identity` (the DLQ is at-least-once: a record dead-lettered just before a crash
 * is dead-lettered again on replay, with the same source coordinates).
 */
export async function readTopic(
  bus: MessageBus,
  topic: string,
  count: number,
  timeoutMs = 60_000,
  identity: (m: Message) => string = (m) => JSON.stringify(m),
) {
  const seen = new Map<string, Message>();
  const consumer = await bus.consume({
    groupId: `reader-${randomUUID()}`,
    topics: [topic],
    fromBeginning: true,
    handler: async (batch) => {
      for (const message of batch) seen.set(identity(message), message);
    },
  });
  const deadline = Date.now() + timeoutMs;
  while (seen.size < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  await consumer.stop();
  return [...seen.values()];
}

export async function servicesScript(...args: string[]): Promise<void> {
  await run('bash', [new URL('../../scripts/services.sh', import.meta.url).pathname, ...args], { timeout: 180_000 });
}
