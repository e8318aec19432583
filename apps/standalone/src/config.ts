import { z } from 'zod';
import { parseConfig } from '#core';
import { apiEnv } from '../../api/index.ts';
import { ingestorEnv } from '../../ingestor/index.ts';
import { runnerAppEnv } from '../../runner/index.ts';

/** The standalone process reads the API's variables plus those of the apps it embeds. */
export const standaloneConfigSchema = z.object({
  ...apiEnv,
  ...ingestorEnv,
  ...runnerAppEnv,
  HOST: z.string().default('127.0.0.1'),
  /** Which apps this process runs; run an app elsewhere by leaving it out here. */
  VIGIL_STANDALONE_APPS: z
    .string()
    .default('api,projector,ingestor,alerter,dispatcher,runner')
    .transform((value) =>
      value
        .split(',')
        .map((app) => app.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(['api', 'projector', 'ingestor', 'alerter', 'dispatcher', 'runner']))),
});
export type StandaloneConfig = z.output<typeof standaloneConfigSchema>;

export function loadStandaloneConfig(source: Record<string, string | undefined> = process.env): StandaloneConfig {
  return parseConfig(standaloneConfigSchema, source);
}
