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
export { resolveRunVariables, type RunVariables } from './run-variables.ts';
