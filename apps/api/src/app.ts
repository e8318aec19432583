import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Logger } from '#core';
import { createHttpServer } from '#http';
import type { Platform } from '#platform';
import type { ApiConfig } from './config.ts';
import { version } from './version.ts';

export interface ApiDeps {
  config: ApiConfig;
  log: Logger;
  platform: Platform;
  metrics: Registry;
}

/** Builds the fastify instance with every route; listening is server.ts's job. */
export async function buildApp(deps: ApiDeps): Promise<FastifyInstance> {
  const app = await createHttpServer({
    log: deps.log,
    title: 'Vigil API',
    version,
    description: 'Monitoring backend: accounts, keys, variables, runtimes, checks, analytics and webhook alert channels.',
    readiness: deps.platform.readiness,
    metrics: deps.metrics,
    bodyLimit: deps.config.VIGIL_BODY_LIMIT_BYTES,
  });
  return app;
}
