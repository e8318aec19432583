import type { Registry } from 'prom-client';
import type { Lifecycle, Logger } from '#core';
import type { Platform } from '#platform';
import { ProjectionRunner } from '#projections';
import { controlPlaneProjection } from '#readmodels';

export const CONTROL_PLANE = 'control-plane';

/** Starts the control-plane projection; the lifecycle stops it (after its in-flight batch). */
export function startProjector(deps: {
  platform: Platform;
  log: Logger;
  lifecycle: Lifecycle;
  metrics?: Registry;
  batchSize?: number;
}): ProjectionRunner {
  const runner = new ProjectionRunner({
    name: CONTROL_PLANE,
    projections: [controlPlaneProjection],
    eventStore: deps.platform.eventStore,
    stateStore: deps.platform.stateStore,
    log: deps.log,
    metrics: deps.metrics,
    batchSize: deps.batchSize,
  });
  runner.start();
  deps.lifecycle.add('projector', () => runner.stop());
  return runner;
}
