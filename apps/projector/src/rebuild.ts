import { ConflictError, type Logger } from '#core';
import type { Platform } from '#platform';
import { checkpointKey, checkpointStoreKey, leaseKey, ProjectionRunner } from '#projections';
import { controlPlaneProjection, READ_MODEL_PREFIX } from '#readmodels';
import { CONTROL_PLANE } from './projector.ts';

/**
 * Rebuilds every read model from position zero: clears rm:*, resets the checkpoint and replays
 * the whole event store. Projectors must be stopped first; a running one holds the lease.
 */
export async function rebuildReadModels(
  platform: Platform,
  log: Logger,
  options: { force?: boolean; timeoutMs?: number } = {},
): Promise<{ events: bigint; ms: number }> {
  const started = Date.now();
  const { stateStore, eventStore } = platform;
  if (!options.force && (await stateStore.get(leaseKey(CONTROL_PLANE))) !== null) {
    throw new ConflictError('A projector is running (it holds the lease); stop it first, or pass --force');
  }
  await stateStore.del(leaseKey(CONTROL_PLANE));
  const cleared = await stateStore.deletePrefix(READ_MODEL_PREFIX);
  await stateStore.write([
    { op: 'del', key: checkpointKey(CONTROL_PLANE) },
    { op: 'del', key: checkpointStoreKey(CONTROL_PLANE) },
  ]);
  log.info({ cleared }, 'read models cleared; replaying from position zero');
  const head = await eventStore.headPosition();
  const runner = new ProjectionRunner({
    name: CONTROL_PLANE,
    projections: [controlPlaneProjection],
    eventStore,
    stateStore,
    log,
  });
  runner.start();
  try {
    if (!(await runner.waitFor(head, options.timeoutMs ?? 600_000)))
      throw new Error('rebuild did not reach the head of the event store in time');
  } finally {
    await runner.stop();
  }
  const ms = Date.now() - started;
  log.info({ position: head.toString(), ms }, 'read models rebuilt');
  return { events: head, ms };
}
