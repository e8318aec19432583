import type { Registry } from 'prom-client';
import { createLogger, isAppError, Lifecycle, type Logger, tolerateClosedTargetRejections } from '#core';
import { createHttpServer, createMetricsRegistry } from '#http';
import type { PlatformConfig } from './env.ts';
import { createPlatform, type Platform, type PlatformNeeds } from './platform.ts';

export interface AppContext<C> {
  config: C;
  platform: Platform;
  log: Logger;
  lifecycle: Lifecycle;
  metrics: Registry;
}

/**
 * The shared entry point of the headless apps (projector, ingestor, alerter, dispatcher): parse
 * the config, open the adapters, start the app, serve /health, /ready and /metrics, and drain on
 * SIGTERM. A bad config or a failed start exits 1 with the reason.
 */
export async function runApp<C extends PlatformConfig & { PORT: number; HOST: string }>(
  name: string,
  loadConfig: () => C,
  needs: Omit<PlatformNeeds, 'clientId'>,
  start: (context: AppContext<C>) => Promise<unknown>,
): Promise<void> {
  const log = createLogger({ name });
  tolerateClosedTargetRejections(log);
  try {
    const config = loadConfig();
    log.level = config.LOG_LEVEL;
    const lifecycle = new Lifecycle(log);
    const metrics = createMetricsRegistry();
    const platform = await createPlatform(config, log, lifecycle, { ...needs, clientId: `vigil-${name}` });
    await start({ config, platform, log, lifecycle, metrics });
    const ops = await createHttpServer({
      log,
      title: `Vigil ${name}`,
      version: '1',
      readiness: platform.readiness,
      metrics,
    });
    lifecycle.add('ops-http', () => ops.close());
    await ops.listen({ port: config.PORT, host: config.HOST });
    lifecycle.handleSignals();
  } catch (error) {
    log.fatal(
      { err: isAppError(error) ? { message: error.message, code: error.code } : error },
      `${name} failed to start`,
    );
    process.exit(1);
  }
}
