import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { generateApiKey } from '#core';
import { benchConfig } from '../config.ts';
import { freePort, spawnTs, waitForHttp, type Child } from '../support/processes.ts';
import { cleanUp, runSuffix } from '../support/services.ts';
import { ENCRYPTION_KEY } from '../support/vigil.ts';

/** The apps of the distributed deployment, each its own process, as docker-compose.yml runs them. */
export const APPS = ['projector', 'api', 'ingestor', 'alerter', 'dispatcher', 'runner'] as const;
export type AppName = (typeof APPS)[number];

export interface AppProcess {
  name: AppName;
  /** Where /health, /ready and /metrics answer (the API's own port for the API). */
  url: string;
  process: Child;
}

export interface Deployment {
  apps: AppProcess[];
  apiUrl: string;
  adminKey: string;
  ingestKey: string;
  receiverUrl: string;
  receiver: Child;
  /** The location the runner serves; checks placed there are run by it. */
  runnerLocation: string;
  names: { database: string; topicPrefix: string; redisPrefix: string; pgSchema: string };
  stop(): Promise<void>;
}

export interface DeploymentOptions {
  failRate: number;
  retryDelayMs: number;
  partitions: number;
}

/**
 * PostgreSQL events, Redis state, Kafka, ClickHouse, with names unique to this run (a schema, a
 * key prefix, a topic prefix, a database), so the shared servers' other users see nothing of it.
 */
export async function startDeployment(o: DeploymentOptions): Promise<Deployment> {
  const suffix = runSuffix();
  const names = {
    database: `vigil_soak_${suffix}`,
    topicPrefix: `soak${suffix}.`,
    redisPrefix: `vigil-soak-${suffix}:`,
    pgSchema: `soak_${suffix}`,
  };
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-soak-'));
  const adminKey = generateApiKey();
  const ingestKey = generateApiKey();
  const runnerLocation = 'soak';
  const receiverPort = await freePort();
  const receiver = spawnTs('bench/soak/receiver.ts', {}, [], [String(receiverPort), String(o.failRate)]);
  const receiverUrl = `http://127.0.0.1:${receiverPort}`;

  const env: Record<string, string> = {
    EVENTSTORE_URL: benchConfig.eventStorePostgresUrl,
    EVENTSTORE_SCHEMA: names.pgSchema,
    REDIS_URL: benchConfig.redisUrl,
    REDIS_KEY_PREFIX: names.redisPrefix,
    KAFKA_BROKERS: benchConfig.kafkaBrokers,
    KAFKA_TOPIC_PREFIX: names.topicPrefix,
    KAFKA_TOPIC_PARTITIONS: String(o.partitions),
    CLICKHOUSE_URL: benchConfig.clickhouseUrl,
    CLICKHOUSE_DATABASE: names.database,
    VIGIL_ENCRYPTION_KEY: ENCRYPTION_KEY,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    VIGIL_RUNNER_LOCATION: runnerLocation,
    VIGIL_RUNNER_ALLOW_PRIVATE: 'true',
    VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
    VIGIL_WEBHOOK_RETRY_DELAY_MS: String(o.retryDelayMs),
  };
  const own: Record<AppName, Record<string, string>> = {
    projector: {},
    api: { VIGIL_ADMIN_KEY: adminKey, VIGIL_INGEST_KEY: ingestKey, VIGIL_RATE_LIMIT_PER_MINUTE: '1000000' },
    ingestor: {},
    alerter: {},
    dispatcher: {},
    runner: {},
  };
  const apps: AppProcess[] = [];
  const stopAll = async () => {
    // Reverse order: the API and the consumers drain before the projector they read through.
    for (const app of [...apps].reverse()) await app.process.stop();
    await receiver.stop();
  };
  try {
    await waitForHttp(`${receiverUrl}/stats`, receiver);
    for (const name of APPS) {
      const port = await freePort();
      const child = spawnTs(`apps/${name}/src/main.ts`, { ...env, ...own[name], PORT: String(port) });
      apps.push({ name, url: `http://127.0.0.1:${port}`, process: child });
      // The projector creates the event-store schema; the rest start together once it is there.
      if (name === 'projector') await waitForHttp(`http://127.0.0.1:${port}/ready`, child, 120_000);
    }
    for (const app of apps) await waitForHttp(`${app.url}/ready`, app.process, 120_000);
  } catch (error) {
    await stopAll();
    await removeData(names, dataDir);
    throw error;
  }
  return {
    apps,
    apiUrl: apps.find((app) => app.name === 'api')!.url,
    adminKey,
    ingestKey,
    receiverUrl,
    receiver,
    runnerLocation,
    names,
    async stop() {
      await stopAll();
      await removeData(names, dataDir);
    },
  };
}

async function removeData(names: Deployment['names'], dataDir: string): Promise<void> {
  await cleanUp(names);
  const client = new pg.Client({ connectionString: benchConfig.eventStorePostgresUrl });
  try {
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${names.pgSchema}" CASCADE`);
  } catch {
    // best effort, like the rest of the clean-up
  } finally {
    await client.end().catch(() => undefined);
  }
  rmSync(dataDir, { recursive: true, force: true });
}
