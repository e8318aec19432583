import { z } from 'zod';
import { env, parseConfig } from '#core';
import { PRIVATE_LOCATION_KEY_PREFIX } from '#domain';

/**
 * The agent's settings: the API it polls and the location key it polls with. No database, bus or
 * state store: everything else comes over the authenticated channel.
 */
export const agentConfigSchema = z.object({
  /** The API's public URL (https:// in production; the key travels in every request). */
  VIGIL_API_URL: env.url(['http', 'https']),
  /** A key of the private location (POST /v1/private-locations/{id}/keys), pl_… */
  VIGIL_AGENT_KEY: z
    .string()
    .startsWith(PRIVATE_LOCATION_KEY_PREFIX, `must be a private-location key (${PRIVATE_LOCATION_KEY_PREFIX}…)`)
    .min(16),
  /** Runs at once; the agent leases at most this many. */
  JOB_CONCURRENCY: env.int(10, 1, 1_000),
  /**
   * Private locations exist to reach private addresses, so the agent lifts the address policy by
   * default; true makes it refuse loopback and private targets like the cluster's runners do.
   */
  VIGIL_AGENT_ENFORCE_ADDRESS_POLICY: env.bool(false),
  /** How long one lease request waits for due runs (long-poll), ms. */
  VIGIL_AGENT_POLL_WAIT_MS: env.int(20_000, 0, 25_000),
  /** Debian's chromium, for browser checks. */
  CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  /** The headless shell BROWSER checks prefer when installed; empty: CHROMIUM_PATH. */
  CHROMIUM_HEADLESS_SHELL_PATH: z.string().default('/usr/lib/chromium/chromium-headless-shell'),
  /** Where script runtimes are installed; unset, <repo>/.runtimes (a cache, rebuilt when missing). */
  VIGIL_RUNTIMES_DIR: z.string().min(1).optional(),
  VIGIL_RUNTIMES_INSTALL: env.bool(true),
  LOG_LEVEL: env.logLevel(),
});
export type AgentConfig = z.output<typeof agentConfigSchema>;

/** Reads the process environment unless given another source (tests). */
export function loadAgentConfig(source?: Record<string, string | undefined>): AgentConfig {
  return parseConfig(agentConfigSchema, source);
}
