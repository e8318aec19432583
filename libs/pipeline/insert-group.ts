import type { CheckResult } from '#domain';

/**
 * Group commit for analytics inserts: calls that arrive while an insert is in flight are stored
 * together by the next one, so partitions consumed at once share an insert instead of each
 * paying ClickHouse's per-insert cost (a part per insert on 18.16, an HTTP round trip, the
 * rollup check). A batch per partition holds a few hundred to a few thousand results when
 * producers spread keys over many partitions, far below the 100k rows the ceiling inserts.
 *
 * The first insert waits for the next turn of the event loop (setImmediate), so the batches of
 * every partition handled at once that are ready by then share it too, rather than the first one
 * going alone and the rest waiting behind it.
 *
 * With maxInFlight 2 a second insert may start while the first is in flight: ClickHouse parses
 * each insert on one thread, so two overlap its parsing with the next insert's encoding here.
 *
 * Each call resolves only once an insert holding all of its results succeeded, and rejects if
 * that insert failed, so a partition's offsets are committed only for durable work and a failed
 * insert is retried by every partition that had results in it (the insert is idempotent by id).
 */
export function createInsertGroup(
  insert: (results: readonly CheckResult[]) => Promise<void>,
  options: { maxResults?: number; maxInFlight?: number } = {},
): (results: readonly CheckResult[]) => Promise<void> {
  const maxResults = options.maxResults ?? 100_000;
  const maxInFlight = options.maxInFlight ?? 1;
  interface Waiter {
    results: readonly CheckResult[];
    resolve: () => void;
    reject: (error: unknown) => void;
  }
  let queue: Waiter[] = [];
  let inFlight = 0;
  let scheduled = false;
  function schedule(): void {
    if (scheduled || inFlight >= maxInFlight) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      next();
    });
  }

  function next(): void {
    while (inFlight < maxInFlight && queue.length > 0) start();
  }

  function start(): void {
    // Take whole calls up to maxResults (always at least one), so no call is split across inserts.
    let count = 0;
    let take = 0;
    while (take < queue.length && (take === 0 || count + queue[take]!.results.length <= maxResults)) {
      count += queue[take]!.results.length;
      take += 1;
    }
    const group = queue.slice(0, take);
    queue = queue.slice(take);
    inFlight += 1;
    insert(group.length === 1 ? group[0]!.results : group.flatMap((waiter) => waiter.results)).then(
      () => {
        inFlight -= 1;
        for (const waiter of group) waiter.resolve();
        next();
      },
      (error: unknown) => {
        inFlight -= 1;
        for (const waiter of group) waiter.reject(error);
        next();
      },
    );
  }

  return (results) =>
    new Promise<void>((resolve, reject) => {
      if (results.length === 0) return resolve();
      queue.push({ results, resolve, reject });
      schedule();
    });
}
