import type { StateStore } from '#statestore';

/**
 * The start time a window's run reports. A runner that dies after its result is durable but
 * before the check is rescheduled leaves the window to a replica, which runs it again with the
 * same result id. The repeat reports the first attempt's start time, so the two are one row
 * wherever results are deduplicated by (start time, id), as ClickHouse's ReplacingMergeTree
 * key does.
 */
export function createStartTimes(store: StateStore, location: string, leaseMs: number) {
  // Long enough to outlive any takeover: the lease, the margin before a replica claims, a retry.
  const ttlMs = Math.max(10 * 60_000, 3 * leaseMs);
  return async (resultId: string, now: Date): Promise<Date> => {
    const key = `runner:started:${location}:${resultId}`;
    if (await store.setIfAbsent(key, String(now.getTime()), { ttlMs })) return now;
    const first = Number(await store.get(key));
    return Number.isSafeInteger(first) && first > 0 ? new Date(first) : now;
  };
}
