import type { Logger } from '#core';
import { dayOf } from './keys.ts';
import type { ArtifactStore } from './port.ts';

const DAY_MS = 86_400_000;

/** The first day still kept: artifacts of earlier (UTC) days are expired. */
export function retentionCutoff(retentionDays: number, now: Date): string {
  return dayOf(new Date(now.getTime() - retentionDays * DAY_MS));
}

/** Whether a run's artifacts are past retention (deleted, or about to be), by the day they were keyed under. */
export function artifactsExpired(startedAt: string, retentionDays: number, now: Date): boolean {
  return dayOf(startedAt) < retentionCutoff(retentionDays, now);
}

/** Deletes one batch of expired artifacts (at most `batch`); returns how many. */
export async function sweepExpiredOnce(
  store: ArtifactStore,
  retentionDays: number,
  now: Date,
  batch = 500,
): Promise<number> {
  const keys = await store.listBefore(retentionCutoff(retentionDays, now), batch);
  if (keys.length > 0) await store.delete(keys);
  return keys.length;
}

export interface RetentionOptions {
  store: ArtifactStore;
  retentionDays: number;
  log: Logger;
  /** Between sweeps; default one hour. */
  everyMs?: number;
  /** Keys per batch, and batches per sweep: a large backlog is worked off over several sweeps. */
  batch?: number;
  maxBatches?: number;
  now?: () => Date;
}

/**
 * Deletes expired artifacts in bounded batches, once now and then every `everyMs`. Replicas may
 * sweep at once: deleting a deleted key is no error. Results keep naming their artifacts; readers
 * mark them expired by the same cutoff (artifactsExpired).
 */
export function startRetention(options: RetentionOptions): { stop(): Promise<void> } {
  const { store, retentionDays, log } = options;
  const batch = options.batch ?? 500;
  const maxBatches = options.maxBatches ?? 20;
  const now = options.now ?? (() => new Date());
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const sweep = async () => {
    let deleted = 0;
    try {
      for (let round = 0; round < maxBatches && !stopped; round++) {
        const count = await sweepExpiredOnce(store, retentionDays, now(), batch);
        deleted += count;
        if (count < batch) break;
      }
      if (deleted > 0) log.info({ deleted, retentionDays }, 'expired artifacts deleted');
    } catch (error) {
      log.warn({ err: error, deleted }, 'artifact retention sweep failed; the next one retries');
    }
  };
  running = sweep();
  const timer = setInterval(() => {
    running = running.then(sweep);
  }, options.everyMs ?? 3_600_000);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
