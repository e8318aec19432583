import { z } from 'zod';
import { env, parseConfig } from '#core';
import { channelEnv } from '#notify';
import { platformEnv, webhookEnv } from '#platform';

export const dispatcherConfigSchema = z.object({
  ...platformEnv,
  ...webhookEnv,
  ...channelEnv,
  /** Port of the operations server: /health, /ready, /metrics. */
  PORT: env.port(9464),
  HOST: z.string().default('0.0.0.0'),
  /** As the API's: a private location with no agent polling for this long alerts (ALERT_LOCATION_UNAVAILABLE). */
  VIGIL_PRIVATE_LOCATION_UNAVAILABLE_MS: env.int(600_000, 1_000, 86_400_000),
});
/** VIGIL_PUBLIC_URL is always set once loaded. */
export type DispatcherConfig = Omit<z.output<typeof dispatcherConfigSchema>, 'VIGIL_PUBLIC_URL'> & {
  VIGIL_PUBLIC_URL: string;
};

// Run alone, the dispatcher cannot know where the API listens: set VIGIL_PUBLIC_URL to it.
const DEFAULT_PUBLIC_URL = 'http://localhost:3000';

export function loadDispatcherConfig(source: Record<string, string | undefined> = process.env): DispatcherConfig {
  const config = parseConfig(dispatcherConfigSchema, source);
  return { ...config, VIGIL_PUBLIC_URL: config.VIGIL_PUBLIC_URL ?? DEFAULT_PUBLIC_URL };
}
