import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { createLogger } from '#core';
import { installMissing, runtimesRoot } from '#runtimes';
import { ensureTools } from '../../scripts/npm-tools.ts';
import { sweepStaleTestData } from './sweep.ts';

const run = promisify(execFile);
const script = fileURLToPath(new URL('../../scripts/services.sh', import.meta.url));

export interface ServiceEnv {
  REDIS_URL: string;
  CLICKHOUSE_URL: string;
  KAFKA_BROKERS: string;
  /** postgres://… of the database `vigil` (create a schema per suite). */
  POSTGRES_URL: string;
  /** The same URL under the name the event store's tests read. */
  VIGIL_POSTGRES_URL: string;
  /** host:port of dnsmasq, authoritative for vigil.test (UDP and TCP). */
  DNS_SERVER: string;
  /** Directory of hosts files dnsmasq re-reads: write `<ip> <name>.vigil.test` lines to add A/AAAA records. */
  DNS_HOSTS_DIR: string;
  /** Debian's Chromium, for playwright-core's executablePath. */
  CHROMIUM_PATH: string;
  /** Debian's chromium-headless-shell, which BROWSER checks drive (libs/probes createProber). */
  CHROMIUM_HEADLESS_SHELL_PATH: string;
  /** s3proxy (filesystem backend), an S3-compatible server for the artifact store, and its credentials. */
  S3_ENDPOINT: string;
  S3_ACCESS_KEY_ID: string;
  S3_SECRET_ACCESS_KEY: string;
}

/** The runtimes global setup installed (every one not REMOVED today), or why it could not. */
export type RuntimesEnv = { root: string; installed: string[] } | { error: string };

declare module 'vitest' {
  export interface ProvidedContext {
    services: ServiceEnv | { error: string };
    runtimes: RuntimesEnv;
  }
}

/**
 * Installs every runtime that is not REMOVED today into the default root (<repo>/.runtimes, where
 * the Vigil the tests start looks): a no-op when installed. Under CI a failure fails the setup; else
 * the suites that need a runtime fail with the reason.
 */
async function installRuntimes(project: TestProject): Promise<void> {
  const root = runtimesRoot();
  try {
    const logger = createLogger({ level: 'warn', name: 'global-setup' });
    const installed = await installMissing(root, { logger, now: new Date() });
    project.provide('runtimes', { root, installed: installed.map((runtime) => runtime.name) });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    if (process.env.CI === 'true') throw new Error(`installing runtimes failed: ${detail}`, { cause: error });
    project.provide('runtimes', { error: `installing runtimes (npm run runtimes:install) failed: ${detail}` });
  }
}

/**
 * Starts Redis, ClickHouse, Kafka, PostgreSQL and dnsmasq (and installs Chromium) through scripts/services.sh (a no-op when they already
 * run) and hands their addresses to the suites. When they cannot be started, suites that
 * need them fail with the reason: they never skip.
 */
export default async function setup(project: TestProject): Promise<void> {
  if (process.env.VIGIL_TEST_SERVICES === 'none') {
    project.provide('services', { error: 'VIGIL_TEST_SERVICES=none: services were not started' });
    project.provide('runtimes', { error: 'VIGIL_TEST_SERVICES=none: runtimes were not installed' });
    return;
  }
  try {
    await run('bash', [script, 'up'], { timeout: 900_000, maxBuffer: 16 * 1024 * 1024 });
    const { stdout } = await run('bash', [script, 'env']);
    const values = Object.fromEntries(
      stdout
        .split('\n')
        .filter((line) => line.includes('='))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    const { REDIS_URL, CLICKHOUSE_URL, KAFKA_BROKERS, POSTGRES_URL, DNS_SERVER, DNS_HOSTS_DIR, CHROMIUM_PATH } = values;
    const { S3_ENDPOINT, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, CHROMIUM_HEADLESS_SHELL_PATH } = values;
    if (
      !REDIS_URL ||
      !CLICKHOUSE_URL ||
      !KAFKA_BROKERS ||
      !POSTGRES_URL ||
      !DNS_SERVER ||
      !DNS_HOSTS_DIR ||
      !CHROMIUM_PATH ||
      !CHROMIUM_HEADLESS_SHELL_PATH ||
      !S3_ENDPOINT ||
      !S3_ACCESS_KEY_ID ||
      !S3_SECRET_ACCESS_KEY
    )
      throw new Error(`services.sh env printed an incomplete set: ${stdout}`);
    project.provide('services', {
      REDIS_URL,
      CLICKHOUSE_URL,
      KAFKA_BROKERS,
      POSTGRES_URL,
      VIGIL_POSTGRES_URL: POSTGRES_URL,
      DNS_SERVER,
      DNS_HOSTS_DIR,
      CHROMIUM_PATH,
      CHROMIUM_HEADLESS_SHELL_PATH,
      S3_ENDPOINT,
      S3_ACCESS_KEY_ID,
      S3_SECRET_ACCESS_KEY,
    });
    // Best effort: what old runs left only costs space and broker time, never a result.
    const swept = await sweepStaleTestData({ CLICKHOUSE_URL, KAFKA_BROKERS }).catch(
      (error: unknown) => `sweeping stale test data failed: ${String(error)}`,
    );
    createLogger({ level: 'info', name: 'global-setup' }).info({ swept }, 'stale test data');
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    project.provide('services', { error: `scripts/services.sh up failed: ${detail}` });
  }
  await installRuntimes(project);
  // chdb (the in-process ClickHouse of the analytics engine suite) is not in package.json: see scripts/npm-tools.ts.
  ensureTools(['chdb']);
}
