import { z } from 'zod';
import { parseConfig } from '#core';
import { listenUrl } from '#platform';
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
/** VIGIL_PUBLIC_URL is always set once loaded: unset, it is the address the API listens on. */
export type StandaloneConfig = Omit<z.output<typeof standaloneConfigSchema>, 'VIGIL_PUBLIC_URL'> & {
  VIGIL_PUBLIC_URL: string;
  /** Whether VIGIL_PUBLIC_URL was derived from HOST and PORT rather than set. */
  publicUrlDerived: boolean;
};

export function loadStandaloneConfig(source: Record<string, string | undefined> = process.env): StandaloneConfig {
  const config = parseConfig(standaloneConfigSchema, source);
  return {
    ...config,
    VIGIL_PUBLIC_URL: config.VIGIL_PUBLIC_URL ?? listenUrl(config.HOST, config.PORT),
    publicUrlDerived: config.VIGIL_PUBLIC_URL === undefined,
  };
}
