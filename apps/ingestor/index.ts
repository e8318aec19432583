export { startIngestor, INGESTOR_GROUP, INGESTOR_PARTITIONS_CONCURRENTLY } from './src/ingestor.ts';
export { ingestorEnv } from './src/config.ts';
export { ingestorConfigSchema } from './src/config.ts';
