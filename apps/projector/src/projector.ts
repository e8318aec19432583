import type { Registry } from 'prom-client';
import type { Lifecycle, Logger } from '#core';
import type { Platform } from '#platform';
import { ProjectionRunner } from '#projections';
import { controlPlaneProjection } from '#readmodels';

export const CONTROL_PLANE = 'control-plane';

/**
 * Starts the control-plane projection; the lifecycle stops it (after its in-flight batch).
 * Refuses to start (StoreMismatchError, naming both event-store identities and the rebuild
 * command) when the read models were built from another event store, or from a longer history.
 */
export async function startProjector(deps: {
  platform: Platform;
  log: Logger;
  lifecycle: Lifecycle;
  metrics?: Registry;
  batchSize?: number;
  /** Called if the projection stops for good while running; the projector app exits on it. */
  onFatal?: (error: Error) => void;
}): Promise<ProjectionRunner> {
  const runner = new ProjectionRunner({
    name: CONTROL_PLANE,
    projections: [controlPlaneProjection],
    eventStore: deps.platform.eventStore,
    stateStore: deps.platform.stateStore,
    log: deps.log,
    metrics: deps.metrics,
    batchSize: deps.batchSize,
    onFatal: deps.onFatal,
  });
  await runner.verifyStore();
  deps.platform.readiness.push({
    name: 'projection',
    check: async () => {
      if (runner.failure) throw runner.failure;
    },
  });
  runner.start();
  deps.lifecycle.add('projector', () => runner.stop());
  return runner;
}
