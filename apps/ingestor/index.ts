export { startIngestor, INGESTOR_GROUP } from './src/ingestor.ts';
export { ingestorEnv } from './src/config.ts';
export { ingestorConfigSchema } from './src/config.ts';
