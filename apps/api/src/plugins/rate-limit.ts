import { RateLimitedError } from '#core';
import type { StateStore } from '#statestore';

export interface RateLimitRule {
  /** Names the bucket: requests of one account to one bucket share the limit. */
  bucket: string;
  limit: number;
  windowSeconds: number;
}

export interface RateLimitResult {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * Fixed-window counters in the state store, so every API replica shares them (Redis) and a
 * restart does not reset them (SQLite). One INCR per request keeps the hot path at one round trip.
 */
export function createRateLimiter(stateStore: StateStore, now: () => number = Date.now) {
  return async function consume(scope: string, rule: RateLimitRule): Promise<RateLimitResult> {
    const windowMs = rule.windowSeconds * 1000;
    const windowStart = Math.floor(now() / windowMs) * windowMs;
    const key = `ratelimit:${rule.bucket}:${scope}:${windowStart}`;
    const count = await stateStore.incr(key, 1, { ttlMs: windowMs + 1000 });
    const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now()) / 1000));
    const result = { limit: rule.limit, remaining: Math.max(0, rule.limit - count), resetSeconds };
    if (count > rule.limit) {
      const error = new RateLimitedError(
        `Rate limit of ${rule.limit} requests per ${rule.windowSeconds} s exceeded; retry in ${resetSeconds} s`,
        resetSeconds,
      );
      throw Object.assign(error, { rateLimit: result });
    }
    return result;
  };
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
