export { controlPlaneProjection, aggregateOf } from './projection.ts';
export {
  ReadModels,
  type AccountView,
  type UserView,
  type ApiKeyView,
  type VariableView,
  type CheckView,
  type CheckGroupView,
  type AlertChannelView,
  type Page,
  type Paged,
} from './reader.ts';
export { keys as readModelKeys, READ_MODEL_PREFIX } from './keys.ts';
export { triggerTokenDigest } from './indexes.ts';
export { CachedReadModels, type ReadCacheOptions } from './cached-reader.ts';
export { createLocalInvalidation, type ReadModelInvalidation } from './invalidation.ts';
export { createRedisInvalidation, type RedisInvalidationOptions } from './invalidation-redis.ts';
export { resolveRunVariables, type RunVariables } from './run-variables.ts';
export { StatusPageReads, type StatusPageView } from './status-pages.ts';
export { MaintenanceWindowReads, type MaintenanceWindowView } from './maintenance-windows.ts';
export {
  CheckStatusReads,
  checkStatusSchema,
  foldStatus,
  statusOps,
  alertOps,
  statusKeys,
  STATUS_PREFIX,
  type CheckStatus,
} from './check-status.ts';
export { startStatusConsumer, STATUS_GROUP } from './status-consumer.ts';
export { PrivateLocationReads, type PrivateLocationView } from './private-locations.ts';
