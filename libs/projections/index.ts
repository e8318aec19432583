export type { Projection, ReadView } from './projection.ts';
export { ProjectionRunner, readCheckpoint, checkpointKey, type ProjectionRunnerOptions } from './runner.ts';
export { createCheckpointWaiter } from './waiter.ts';
