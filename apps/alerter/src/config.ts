import { z } from 'zod';
import { env, parseConfig } from '#core';
import { platformEnv } from '#platform';

export const alerterConfigSchema = z.object({
  ...platformEnv,
  /** Port of the operations server: /health, /ready, /metrics. */
  PORT: env.port(9464),
  HOST: z.string().default('0.0.0.0'),
});
export type AlerterConfig = z.output<typeof alerterConfigSchema>;

export function loadAlerterConfig(source: Record<string, string | undefined> = process.env): AlerterConfig {
  return parseConfig(alerterConfigSchema, source);
}
