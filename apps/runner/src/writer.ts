import type { Logger } from '#core';
import type { CheckResult } from '#domain';
import type { ResultSink } from '#pipeline';
import type { DueQueue, Scheduled } from '#scheduling';

const FLUSH_SIZE = 200;
const FLUSH_DELAY_MS = 20;

export interface ResultWriter {
  /** Queues results and the check's next schedule: written together, the schedule once the results are durable. */
  emit(results: CheckResult[], next: Scheduled): void;
  /** Writes what is queued now; resolves once written. */
  flush(): Promise<void>;
}

/**
 * The runner's batched writes. Results wait a moment to be written together; their checks are
 * rescheduled once they are durable, so a crash repeats a run (same result id) instead of losing
 * it. One write at a time; what arrives meanwhile goes out together in the next, so a slow store
 * makes batches larger instead of queueing many small writes while leases run down.
 */
export function createResultWriter(sink: ResultSink, queue: DueQueue, log: Logger): ResultWriter {
  let pendingResults: CheckResult[] = [];
  let pendingSchedules: Scheduled[] = [];
  let flushTimer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> | null = null;

  const writeAll = async () => {
    while (pendingSchedules.length > 0 || pendingResults.length > 0) {
      const results = pendingResults;
      const schedules = pendingSchedules;
      pendingResults = [];
      pendingSchedules = [];
      try {
        if (results.length > 0) await sink.accept(results);
        await queue.schedule(schedules);
      } catch (error) {
        // Left leased: the runs are repeated, with the same result ids, when the leases end.
        log.error({ err: error, results: results.length }, 'results not written; the runs will be repeated');
      }
    }
  };
  const flush = (): Promise<void> => {
    if (flushTimer) clearTimeout(flushTimer);
    flushTimer = null;
    flushing ??= writeAll().finally(() => {
      flushing = null;
      if (pendingSchedules.length > 0) flushTimer ??= setTimeout(() => void flush(), FLUSH_DELAY_MS);
    });
    return flushing;
  };
  const emit = (results: CheckResult[], next: Scheduled) => {
    pendingResults.push(...results);
    pendingSchedules.push(next);
    if (flushing) return;
    if (pendingSchedules.length >= FLUSH_SIZE) void flush();
    else flushTimer ??= setTimeout(() => void flush(), FLUSH_DELAY_MS);
  };
  return { emit, flush };
}
