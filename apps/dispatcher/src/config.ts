import { z } from 'zod';
import { env, parseConfig } from '#core';
import { platformEnv, webhookEnv } from '#platform';

export const dispatcherConfigSchema = z.object({
  ...platformEnv,
  ...webhookEnv,
  /** Port of the operations server: /health, /ready, /metrics. */
  PORT: env.port(9464),
  HOST: z.string().default('0.0.0.0'),
});
export type DispatcherConfig = z.output<typeof dispatcherConfigSchema>;

export function loadDispatcherConfig(source: Record<string, string | undefined> = process.env): DispatcherConfig {
  return parseConfig(dispatcherConfigSchema, source);
}
