import { createLogger, isAppError, Lifecycle } from '#core';
import { createHttpServer, createMetricsRegistry } from '#http';
import { createPlatform } from '#platform';
import { loadProjectorConfig } from './config.ts';
import { startProjector } from './projector.ts';

const log = createLogger({ name: 'projector' });
try {
  const config = loadProjectorConfig();
  log.level = config.LOG_LEVEL;
  const lifecycle = new Lifecycle(log);
  const metrics = createMetricsRegistry();
  const platform = await createPlatform(config, log, lifecycle, { clientId: 'vigil-projector' });
  startProjector({ platform, log, lifecycle, metrics, batchSize: config.VIGIL_PROJECTION_BATCH_SIZE });
  const ops = await createHttpServer({ log, title: 'Vigil projector', version: '1', readiness: platform.readiness, metrics });
  lifecycle.add('ops-http', () => ops.close());
  await ops.listen({ port: config.PORT, host: config.HOST });
  lifecycle.handleSignals();
} catch (error) {
  log.fatal({ err: isAppError(error) ? { message: error.message, code: error.code } : error }, 'projector failed to start');
  process.exit(1);
}
