import { z } from 'zod';
import { env, parseConfig } from '#core';
import { platformEnv } from '#platform';

export const ingestorEnv = {
  /** Most results per analytics insert. */
  VIGIL_INGEST_BATCH_SIZE: env.int(20_000, 1, 100_000),
  /** First backoff when the analytics store fails; it doubles up to 30 s. */
  VIGIL_INGEST_RETRY_MS: env.int(500, 10, 60_000),
};

export const ingestorConfigSchema = z.object({
  ...platformEnv,
  ...ingestorEnv,
  /** Port of the operations server: /health, /ready, /metrics. */
  PORT: env.port(9464),
  HOST: z.string().default('0.0.0.0'),
});
export type IngestorConfig = z.output<typeof ingestorConfigSchema>;

export function loadIngestorConfig(source: Record<string, string | undefined> = process.env): IngestorConfig {
  return parseConfig(ingestorConfigSchema, source);
}
