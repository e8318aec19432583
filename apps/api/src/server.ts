import type { FastifyInstance } from 'fastify';
import { createLogger, Lifecycle, type Logger } from '#core';
import { createMetricsRegistry } from '#http';
import { createPlatform, type Platform } from '#platform';
import { buildApp } from './app.ts';
import type { ApiConfig } from './config.ts';

export interface RunningApi {
  app: FastifyInstance;
  platform: Platform;
  url: string;
  lifecycle: Lifecycle;
}

/** Opens the adapters, builds the app and listens. The lifecycle closes all of it, server first. */
export async function startApi(config: ApiConfig, log: Logger = createLogger({ level: config.LOG_LEVEL, name: 'api' })): Promise<RunningApi> {
  const lifecycle = new Lifecycle(log);
  try {
    const metrics = createMetricsRegistry();
    const platform = await createPlatform(config, log, lifecycle, { bus: true, analytics: true, clientId: 'vigil-api' });
    const app = await buildApp({ config, log, platform, metrics });
    // Added last so it closes first: stop taking requests and drain in-flight ones before adapters close.
    lifecycle.add('http', () => app.close());
    const url = await app.listen({ port: config.PORT, host: config.HOST });
    log.info({ url }, 'api listening');
    return { app, platform, url, lifecycle };
  } catch (error) {
    await lifecycle.stop();
    throw error;
  }
}
