import { z } from 'zod';
import { artifactEnv } from '#artifacts';
import { env } from '#core';

/**
 * Environment variables shared by every server app. Each app's own config module composes
 * these into its schema and parses the environment once.
 */
export const platformEnv = {
  LOG_LEVEL: env.logLevel(),
  DATA_DIR: z.string().default('./data'),
  EVENTSTORE_URL: z
    .string()
    .regex(
      /^(postgres|postgresql|esdb|esdb\+discover|kurrentdb|kdb):\/\//,
      'expected a postgres:// or esdb:// connection string',
    )
    .optional(),
  /** PostgreSQL schema of the event store, so several deployments (or test runs) can share one server. */
  EVENTSTORE_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'expected a lower-case identifier (a-z, 0-9, _)')
    .default('vigil'),
  REDIS_URL: env.url(['redis', 'rediss']).optional(),
  /** Prefix of every Redis key, so several deployments (or test runs) can share one Redis. */
  REDIS_KEY_PREFIX: z.string().max(64).default('vigil:'),
  KAFKA_BROKERS: env.list().optional(),
  KAFKA_TOPIC_PARTITIONS: env.int(12, 1, 1000),
  /** Prefixes topic and consumer-group names, so several deployments (or test runs) can share one Kafka. */
  KAFKA_TOPIC_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9._-]*$/, 'letters, digits, dot, dash and underscore only')
    .max(100)
    .default(''),
  CLICKHOUSE_URL: env.url(['http', 'https']).optional(),
  CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected a plain identifier')
    .default('vigil'),
  VIGIL_ENCRYPTION_KEY: z
    .string()
    .regex(/^[A-Fa-f0-9]{64}$|^[A-Za-z0-9+/]{43}=$/, 'expected 32 bytes as 64 hex characters or base64')
    .optional(),
  /** The artifact store (files under DATA_DIR/artifacts, or S3 with ARTIFACTS_URL) and its retention. */
  ...artifactEnv,
};

/** Webhook delivery settings: read by the dispatcher, and by the API for test messages. */
export const webhookEnv = {
  VIGIL_WEBHOOK_TIMEOUT_MS: env.int(30_000, 100, 120_000),
  VIGIL_WEBHOOK_MAX_RETRIES: env.int(5, 0, 20),
  VIGIL_WEBHOOK_RETRY_DELAY_MS: env.int(20_000, 10, 3_600_000),
  /** The one switch (see privateTargetsAllowed); this older name still works as an alias for deliveries. */
  VIGIL_ALLOW_PRIVATE_TARGETS: env.bool(false),
  /** Alias of VIGIL_ALLOW_PRIVATE_TARGETS for alert deliveries only, kept from before it existed. */
  VIGIL_WEBHOOK_ALLOW_PRIVATE: env.bool(false),
  /** Deliveries attempted at once to one receiver origin; a process runs twice this across receivers. */
  VIGIL_WEBHOOK_CONCURRENCY: env.int(32, 1, 1000),
  /** What {{REGION}} renders. */
  VIGIL_REGION: z.string().min(1).max(64).default('local'),
  /** Base of RESULT_LINK and ping URLs; unset, each app derives it (see publicUrlFor). */
  VIGIL_PUBLIC_URL: env.url(['http', 'https']).optional(),
};

/** How checks are run: by the runner app, and by the API for trigger and test runs. */
export const runnerEnv = {
  /** The location this process runs checks for; checks with no locations run from here. */
  VIGIL_RUNNER_LOCATION: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters')
    .default('local'),
  /**
   * Checks that name no location run from here: the runners of this location, and the API's
   * trigger and test runs. Set it alike everywhere.
   */
  VIGIL_RUNNER_DEFAULT_LOCATION: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters')
    .default('local'),
  /** The one switch (see privateTargetsAllowed); repeated here so the runner alone reads it too. */
  VIGIL_ALLOW_PRIVATE_TARGETS: env.bool(false),
  /** Alias of VIGIL_ALLOW_PRIVATE_TARGETS for checks and scripts only, kept from before it existed. */
  VIGIL_RUNNER_ALLOW_PRIVATE: env.bool(false),
  /** Debian's chromium; browser checks drive it with playwright-core. */
  CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  /**
   * Debian's chromium-headless-shell, which BROWSER checks drive when it is installed (about a
   * quarter of Chromium's CPU per run); empty, or not installed, they drive CHROMIUM_PATH.
   */
  CHROMIUM_HEADLESS_SHELL_PATH: z.string().default('/usr/lib/chromium/chromium-headless-shell'),
  /** Where script runtimes are installed (npm run runtimes:install); unset, <repo>/.runtimes. */
  VIGIL_RUNTIMES_DIR: z.string().min(1).optional(),
};

export type PlatformConfig = z.output<z.ZodObject<typeof platformEnv>>;

/**
 * The address a server listening on host:port is reached at. A wildcard bind answers on every
 * interface; loopback is the one address sure to reach it from the same machine.
 */
export function listenUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** The switch that lets checks, scripts and alert deliveries reach private, loopback and link-local addresses. */
export const PRIVATE_TARGETS_SWITCH = 'VIGIL_ALLOW_PRIVATE_TARGETS';

/**
 * Whether checks and scripts may reach private addresses: the one switch, or its older alias.
 * Cloud metadata addresses stay blocked either way (the address policy's own rule).
 */
export function checksMayReachPrivate(config: {
  VIGIL_ALLOW_PRIVATE_TARGETS: boolean;
  VIGIL_RUNNER_ALLOW_PRIVATE: boolean;
}): boolean {
  return config.VIGIL_ALLOW_PRIVATE_TARGETS || config.VIGIL_RUNNER_ALLOW_PRIVATE;
}

/** Whether alert deliveries (webhooks, hosted services, the SMTP relay) may reach private addresses. */
export function deliveriesMayReachPrivate(config: {
  VIGIL_ALLOW_PRIVATE_TARGETS: boolean;
  VIGIL_WEBHOOK_ALLOW_PRIVATE: boolean;
}): boolean {
  return config.VIGIL_ALLOW_PRIVATE_TARGETS || config.VIGIL_WEBHOOK_ALLOW_PRIVATE;
}
