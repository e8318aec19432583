import { z } from 'zod';
import { env, parseConfig } from '#core';
import { channelEnv } from '#notify';
import { listenUrl, platformEnv, runnerEnv, webhookEnv } from '#platform';

export const apiEnv = {
  ...platformEnv,
  ...webhookEnv,
  ...channelEnv,
  ...runnerEnv,
  /**
   * The public locations a check may name, comma-separated; unset, Checkly's public location names.
   * VIGIL_RUNNER_LOCATION and VIGIL_RUNNER_DEFAULT_LOCATION are always allowed.
   */
  VIGIL_LOCATIONS: env
    .list()
    .pipe(
      z.array(
        z
          .string()
          .max(64)
          .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters'),
      ),
    )
    .optional(),
  /** Pings one heartbeat URL may send per minute, per API process. */
  VIGIL_PING_RATE_PER_MINUTE: env.int(60, 1, 1_000_000),
  /** Calls one check or group trigger URL may make per minute (shared by every API process). */
  VIGIL_TRIGGER_RATE_PER_MINUTE: env.int(10, 1, 1_000_000),
  PORT: env.port(3000),
  HOST: z.string().default('0.0.0.0'),
  /** Largest JSON body on ordinary routes; ingestion has its own, larger limit. */
  VIGIL_BODY_LIMIT_BYTES: env.int(1024 * 1024, 1024, 64 * 1024 * 1024),
  /** Platform admin key: creates accounts. Standalone generates one on first start when unset. */
  VIGIL_ADMIN_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Key internal services use to post check results. */
  VIGIL_INGEST_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Requests per account per minute on every route but multistep analytics. */
  VIGIL_RATE_LIMIT_PER_MINUTE: env.int(600, 1, 1_000_000),
  /** How long a write waits for its read models before answering (read your writes). */
  VIGIL_READ_YOUR_WRITES_TIMEOUT_MS: env.int(3000, 0, 60_000),
  /**
   * How long an API process may answer key, user, account and variable look-ups from memory. Every write
   * drops them on every replica at once; this bounds a missed drop. 0 turns the cache off.
   */
  VIGIL_READ_CACHE_TTL_MS: env.int(1000, 0, 1000),
  /**
   * Runs of recently read checks one API process holds in memory (about 100 bytes each), so a
   * check read again before its results change is answered without the analytics engine; 0 turns
   * it off. Answers are the engine's exactly; see docs/api.md, Analytics.
   */
  VIGIL_ANALYTICS_WINDOW_ROWS: env.int(1_000_000, 0, 100_000_000),
  /** A private location with no agent polling for this long is UNAVAILABLE (and alerts once). */
  VIGIL_PRIVATE_LOCATION_UNAVAILABLE_MS: env.int(600_000, 1_000, 86_400_000),
  /** Requests per minute one private-location key may make on the agent routes. */
  VIGIL_AGENT_RATE_LIMIT_PER_MINUTE: env.int(6_000, 1, 1_000_000),
  /** How long a run leased to an agent is its own; an agent renews longer runs. */
  VIGIL_AGENT_LEASE_MS: env.int(75_000, 5_000, 600_000),
};

export const apiConfigSchema = z.object(apiEnv);
/** VIGIL_PUBLIC_URL is always set once loaded: unset, it is the address the API listens on. */
export type ApiConfig = Omit<z.output<typeof apiConfigSchema>, 'VIGIL_PUBLIC_URL'> & { VIGIL_PUBLIC_URL: string };

export function loadApiConfig(source: Record<string, string | undefined> = process.env): ApiConfig {
  const config = parseConfig(apiConfigSchema, source);
  return { ...config, VIGIL_PUBLIC_URL: config.VIGIL_PUBLIC_URL ?? listenUrl(config.HOST, config.PORT) };
}
