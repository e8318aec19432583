export type { Projection, ReadView } from './projection.ts';
export {
  ProjectionRunner,
  readCheckpoint,
  checkpointKey,
  checkpointStoreKey,
  leaseKey,
  rebuildCommand,
  StoreMismatchError,
  type ProjectionRunnerOptions,
} from './runner.ts';
export { createCheckpointWaiter } from './waiter.ts';
