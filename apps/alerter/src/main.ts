import { createLogger, isAppError, Lifecycle } from '#core';
import { createHttpServer, createMetricsRegistry } from '#http';
import { createPlatform } from '#platform';
import { startAlerter } from './alerter.ts';
import { loadAlerterConfig } from './config.ts';

const log = createLogger({ name: 'alerter' });
try {
  const config = loadAlerterConfig();
  log.level = config.LOG_LEVEL;
  const lifecycle = new Lifecycle(log);
  const metrics = createMetricsRegistry();
  const platform = await createPlatform(config, log, lifecycle, { bus: true, clientId: 'vigil-alerter' });
  await startAlerter({ platform, log, lifecycle, metrics });
  const ops = await createHttpServer({ log, title: 'Vigil alerter', version: '1', readiness: platform.readiness, metrics });
  lifecycle.add('ops-http', () => ops.close());
  await ops.listen({ port: config.PORT, host: config.HOST });
  lifecycle.handleSignals();
} catch (error) {
  log.fatal({ err: isAppError(error) ? { message: error.message, code: error.code } : error }, 'alerter failed to start');
  process.exit(1);
}
