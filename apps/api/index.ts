export { buildApp, type ApiDeps } from './src/app.ts';
export { startApi, type RunningApi } from './src/server.ts';
export { apiEnv, apiConfigSchema, loadApiConfig, type ApiConfig } from './src/config.ts';
