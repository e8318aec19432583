import { z } from 'zod';
import { env, parseConfig } from '#core';
import { platformEnv } from '#platform';

export const projectorConfigSchema = z.object({
  ...platformEnv,
  /** Port of the operations server: /health, /ready, /metrics. */
  PORT: env.port(9464),
  HOST: z.string().default('0.0.0.0'),
  VIGIL_PROJECTION_BATCH_SIZE: env.int(500, 1, 10_000),
});
export type ProjectorConfig = z.output<typeof projectorConfigSchema>;

export function loadProjectorConfig(source: Record<string, string | undefined> = process.env): ProjectorConfig {
  return parseConfig(projectorConfigSchema, source);
}
