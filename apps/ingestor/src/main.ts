import { createLogger, isAppError, Lifecycle } from '#core';
import { createHttpServer, createMetricsRegistry } from '#http';
import { createPlatform } from '#platform';
import { loadIngestorConfig } from './config.ts';
import { startIngestor } from './ingestor.ts';

const log = createLogger({ name: 'ingestor' });
try {
  const config = loadIngestorConfig();
  log.level = config.LOG_LEVEL;
  const lifecycle = new Lifecycle(log);
  const metrics = createMetricsRegistry();
  const platform = await createPlatform(config, log, lifecycle, { bus: true, analytics: true, clientId: 'vigil-ingestor' });
  await startIngestor({ platform, log, lifecycle, metrics, batchSize: config.VIGIL_INGEST_BATCH_SIZE, retryMs: config.VIGIL_INGEST_RETRY_MS });
  const ops = await createHttpServer({ log, title: 'Vigil ingestor', version: '1', readiness: platform.readiness, metrics });
  lifecycle.add('ops-http', () => ops.close());
  await ops.listen({ port: config.PORT, host: config.HOST });
  lifecycle.handleSignals();
} catch (error) {
  log.fatal({ err: isAppError(error) ? { message: error.message, code: error.code } : error }, 'ingestor failed to start');
  process.exit(1);
}
