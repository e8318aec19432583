import { sha256Hex, ValidationError, type Logger } from '#core';
import type { AnalyticsAnswer, AnalyticsRequest } from '#analytics';
import type { StateStore } from '#statestore';

export const MAX_CACHE_TTL_MS = 30_000;
// Larger answers (thousands of buckets × many metrics) are cheaper to recompute than to ship
// through Redis on every hit, and would crowd out the small ones.
const MAX_CACHED_BYTES = 1024 * 1024;

export interface AnalyticsCache {
  /** The cached answer, or the one `compute` returns (which is then cached). */
  answer(key: string, compute: () => Promise<AnalyticsAnswer>): Promise<AnalyticsAnswer>;
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
    async answer(key, compute) {
      if (ttlMs === 0) return compute();
      const pending = inFlight.get(key);
      if (pending !== undefined) return pending;
      // The write is not awaited before the reply (a synchronous SQLite commit took 0.2-0.4 ms of
      // a miss); until it lands, requests for the key join this entry instead of missing.
      let stored: Promise<unknown> = Promise.resolve();
      const work = (async () => {
        const cached = await store.get(key).catch((error: unknown) => {
          log.warn({ err: error }, 'analytics cache read failed; computing');
          return null;
        });
        if (cached !== null) return JSON.parse(cached) as AnalyticsAnswer;
        const answer = await compute();
        const text = JSON.stringify(answer);
        if (text.length <= MAX_CACHED_BYTES) {
          stored = store
            .set(key, text, { ttlMs })
            .catch((error: unknown) => log.warn({ err: error }, 'analytics cache write failed'));
        }
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
 * The cache key of a request. It starts with the account and check, so one account's answer can
 * never be found under another's key, and hashes everything that shapes the answer.
 */
export function analyticsCacheKey(
  scope: { accountId: string; checkId: string; checkType: string },
  request: AnalyticsRequest,
  now: Date,
  ttlMs: number,
): string {
  const window =
    request.relativeWindow === null
      ? { from: request.window.from.getTime(), to: request.window.to.getTime() }
      : {
          relative: request.relativeWindow,
          slot: Math.floor(now.getTime() / Math.max(ttlMs, 1)),
          day: Math.floor(now.getTime() / 86_400_000),
        };
  const shape = {
    type: scope.checkType,
    window,
    interval: request.intervalMinutes,
    statuses: [...request.statuses].sort(),
    groupBy: request.groupBy,
    metrics: request.metrics.map((metric) => metric.name),
    limit: request.limit,
    page: request.page,
  };
  return `analytics-cache:${scope.accountId}:${scope.checkId}:${sha256Hex(JSON.stringify(shape))}`;
}
