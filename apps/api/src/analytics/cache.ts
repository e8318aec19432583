import { hash } from 'node:crypto';
import { ValidationError, type Logger } from '#core';
import type { AnalyticsAnswer, AnalyticsRequest } from '#analytics';
import type { StateStore } from '#statestore';

export const MAX_CACHE_TTL_MS = 30_000;
// Larger answers (thousands of buckets × many metrics) are cheaper to recompute than to ship
// through Redis on every hit, and would crowd out the small ones.
const MAX_CACHED_BYTES = 1024 * 1024;

export interface AnalyticsCache {
  /**
   * The cached answer, or the one `compute` returns (which is then cached). `alsoRead`: another
   * state-store key read in the same round trip as the cache's (the check's change token); on a
   * miss compute gets its value (null when absent), or undefined when it was not read.
   */
  answer(
    key: string,
    compute: (also: string | null | undefined) => Promise<AnalyticsAnswer>,
    alsoRead?: string,
  ): Promise<AnalyticsAnswer>;
}

/**
 * Caches analytics answers in the state store (Redis when configured, so replicas share it).
 *
 * Staleness: an answer is served for at most `ttlMs` (≤ 30 s) after it was computed, so results
 * ingested since then are missing for at most that long. A window that moves with the clock (a
 * quick range, or from without to) has a key that holds the number of the ttl-long time slot it
 * was asked in rather than the window: a hit can only come from the same slot, younger than
 * ttlMs. The key also holds the UTC day, so a calendar range (lastWeek, thisMonth …) is never
 * served across its boundary (always a midnight), whatever ttlMs is.
 * The answer carries the `from` and `to` it was computed for.
 */
export function createAnalyticsCache(
  store: StateStore,
  options: { ttlMs: number; log: Pick<Logger, 'warn'> },
): AnalyticsCache {
  const { ttlMs, log } = options;
  if (!Number.isInteger(ttlMs) || ttlMs < 0 || ttlMs > MAX_CACHE_TTL_MS) {
    throw new ValidationError(`cacheTtlMs: must be a whole number of ms from 0 (off) to ${MAX_CACHE_TTL_MS}`);
  }
  /**
   * Requests for one key while its answer is being looked up or computed share that work
   * (50 dashboards asking the same checks at once otherwise all miss and all compute). A joiner
   * gets an answer computed after the first request began, so it is no older than a cached one.
   */
  const inFlight = new Map<string, Promise<AnalyticsAnswer>>();
  return {
    async answer(key, compute, alsoRead) {
      if (ttlMs === 0) return compute(undefined);
      const pending = inFlight.get(key);
      if (pending !== undefined) return pending;
      // The write waits for the reply and for the I/O ready after it (see afterReply): the embedded
      // store's SQLite commit runs on this thread, 0.1-0.4 ms of a miss. Until it lands, requests
      // for the key join this entry instead of missing.
      let stored: Promise<unknown> = Promise.resolve();
      const work = (async () => {
        const [cached, also] = await (
          alsoRead === undefined ? store.get(key).then((value) => [value]) : store.getMany([key, alsoRead])
        ).catch((error: unknown): [null] => {
          log.warn({ err: error }, 'analytics cache read failed; computing');
          return [null];
        });
        if (cached !== null && cached !== undefined) return JSON.parse(cached) as AnalyticsAnswer;
        const started = Date.now();
        const answer = await compute(also);
        stored = afterReply()
          .then(() => {
            const text = JSON.stringify(answer);
            // Served for at most ttlMs after the engine was asked, however long the write waited.
            const left = ttlMs - (Date.now() - started);
            if (text.length > MAX_CACHED_BYTES || left <= 0) return;
            return store.set(key, text, { ttlMs: left });
          })
          .catch((error: unknown) => log.warn({ err: error }, 'analytics cache write failed'));
        return answer;
      })();
      inFlight.set(key, work);
      try {
        return await work;
      } finally {
        void stored.finally(() => {
          if (inFlight.get(key) === work) inFlight.delete(key);
        });
      }
    },
  };
}

/**
 * Resolves after the reply was written and the event loop has polled for I/O once more: the first
 * setImmediate runs right after this turn, before the loop polls again; the second after that
 * poll, so requests and responses already waiting (a client on this loop among them) go first.
 */
const afterReply = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/**
 * The cache key of a request. It starts with the account and check, so one account's answer can
 * never be found under another's key, and hashes everything that shapes the answer.
 */
export function analyticsCacheKey(
  scope: { accountId: string; checkId: string; checkType: string },
  request: AnalyticsRequest,
  now: Date,
  ttlMs: number,
): string {
  const at = now.getTime();
  const window =
    request.relativeWindow === null
      ? `${request.window.from.getTime()}..${request.window.to.getTime()}`
      : `${request.relativeWindow}@${Math.floor(at / Math.max(ttlMs, 1))}/${Math.floor(at / 86_400_000)}`;
  // One line of validated parts (enum values, metric names, numbers: none holds a newline), hashed
  // in one shot; JSON and a streaming hash object cost more than the rest of the key.
  const statuses = request.statuses.length < 2 ? request.statuses.join() : [...request.statuses].sort().join();
  let metrics = '';
  for (const metric of request.metrics) metrics += `${metric.name},`;
  const shape = `${scope.checkType}\n${window}\n${request.intervalMinutes}\n${statuses}\n${request.groupBy}\n${metrics}\n${request.limit}\n${request.page}`;
  return `analytics-cache:${scope.accountId}:${scope.checkId}:${hash('sha256', shape)}`;
}
