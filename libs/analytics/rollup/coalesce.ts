/**
 * Runs `work` for items handed in by concurrent callers, one run at a time: items that arrive
 * while a run is going wait and go into the next run together, and each caller's promise settles
 * with the run that held its items (its error included).
 *
 * Why: an insert into a closed hour re-rolls that hour's rollups and then the day's, and the day
 * costs the same for one batch as for ten. A backfill arrives as many concurrent batches, so one
 * re-roll per group of batches instead of one per batch is what lets backfills keep up with live
 * results. A caller still waits for a run that began after its own rows were stored, so what an
 * acknowledged insert promises (its hours re-rolled, or the watermark moved back) is unchanged.
 */
export function coalesce<T>(work: (items: T[]) => Promise<void>): (items: readonly T[]) => Promise<void> {
  let running = false;
  let queued: T[] = [];
  let next: { promise: Promise<void>; settle: (error?: unknown) => void } | undefined;

  const group = () => {
    let settle!: (error?: unknown) => void;
    const promise = new Promise<void>((resolve, reject) => {
      settle = (error) => (error === undefined ? resolve() : reject(error));
    });
    return { promise, settle };
  };

  async function drain(): Promise<void> {
    running = true;
    while (next !== undefined) {
      const current = next;
      const items = queued;
      next = undefined;
      queued = [];
      try {
        await work(items);
        current.settle();
      } catch (error) {
        current.settle(error ?? new Error('rollup run failed'));
      }
    }
    running = false;
  }

  return (items) => {
    if (items.length === 0) return Promise.resolve();
    next ??= group();
    for (const item of items) queued.push(item);
    const { promise } = next;
    if (!running) void drain();
    return promise;
  };
}
