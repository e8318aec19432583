import { runApp } from '#platform';
import { loadIngestorConfig } from './config.ts';
import { startIngestor } from './ingestor.ts';

await runApp('ingestor', loadIngestorConfig, { bus: true, analytics: true }, (context) =>
  startIngestor({
    ...context,
    batchSize: context.config.VIGIL_INGEST_BATCH_SIZE,
    retryMs: context.config.VIGIL_INGEST_RETRY_MS,
  }),
);
