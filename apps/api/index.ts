export { buildApp, type ApiDeps } from './src/app.ts';
export {
  startApi,
  ADMIN_KEY_HASH_KEY,
  CONTROL_PLANE_PROJECTION,
  type RunningApi,
  type StartApiOptions,
} from './src/server.ts';
export { apiEnv, apiConfigSchema, loadApiConfig, type ApiConfig } from './src/config.ts';
export { version } from './src/version.ts';
