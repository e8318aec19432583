import { createLogger, isAppError, Lifecycle } from '#core';
import { createHttpServer, createMetricsRegistry } from '#http';
import { createPlatform } from '#platform';
import { version } from '../../api/index.ts';
import { loadDispatcherConfig } from './config.ts';
import { startDispatcher } from './dispatcher.ts';

const log = createLogger({ name: 'dispatcher' });
try {
  const config = loadDispatcherConfig();
  log.level = config.LOG_LEVEL;
  const lifecycle = new Lifecycle(log);
  const metrics = createMetricsRegistry();
  const platform = await createPlatform(config, log, lifecycle, { bus: true, clientId: 'vigil-dispatcher' });
  await startDispatcher({ platform, config, log, lifecycle, metrics, userAgent: `Vigil/${version}` });
  const ops = await createHttpServer({ log, title: 'Vigil dispatcher', version, readiness: platform.readiness, metrics });
  lifecycle.add('ops-http', () => ops.close());
  await ops.listen({ port: config.PORT, host: config.HOST });
  lifecycle.handleSignals();
} catch (error) {
  log.fatal({ err: isAppError(error) ? { message: error.message, code: error.code } : error }, 'dispatcher failed to start');
  process.exit(1);
}
