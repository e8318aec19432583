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
 * A replica reserves at most this share of what is left of a window in one state-store write.
 * The counter in the store never passes what replicas were granted, so the limit is never
 * exceeded; a replica that goes quiet holding a lease leaves at most 1/LEASE_DIVISOR of the
 * window unused (≈3 %; with two replicas ≤ 6 %, inside the ±10 % the design allows).
 */
export const LEASE_DIVISOR = 32;

interface Lease {
  key: string;
  windowStart: number;
  windowEnd: number;
  /** Requests this replica may still admit without a write. */
  left: number;
  /** The store's counter after this replica's last reservation: everyone's reservations. */
  reserved: number;
  /** One reservation in flight per key; concurrent requests wait for it instead of each writing. */
  pending: Promise<void> | null;
}

/**
 * Fixed-window counters in the state store, shared by every API replica (Redis) and surviving a
 * restart (SQLite). Instead of one INCR per request, a replica reserves a block of requests with
 * one INCRBY and admits from it in process: the block is a 1/32 share of what the window has
 * left, so it shrinks to a single request near the limit, where counting is exact again.
 * RateLimit-Remaining is the limit minus every replica's reservations, plus what this replica
 * still holds: exact with one replica, and low by at most the other replicas' unused leases.
 */
export function createRateLimiter(stateStore: StateStore, now: () => number = Date.now) {
  // Bucket, then scope: found by two look-ups, with no key string built per request.
  const leases = new Map<string, Map<string, Lease>>();

  async function reserve(lease: Lease, rule: RateLimitRule, windowMs: number): Promise<void> {
    const unknownLeft = rule.limit - lease.reserved;
    const size = Math.max(1, Math.floor(unknownLeft / LEASE_DIVISOR));
    const total = await stateStore.incr(lease.key, size, { ttlMs: windowMs + 1000 });
    // Past the limit, only the part of the block below it is granted.
    lease.left += Math.max(0, size - Math.max(0, total - rule.limit));
    lease.reserved = Math.max(lease.reserved, total);
  }

  // One clock read per request, passed down (at).
  function leaseFor(scope: string, rule: RateLimitRule, at: number): Lease {
    const windowMs = rule.windowSeconds * 1000;
    const windowStart = Math.floor(at / windowMs) * windowMs;
    let scopes = leases.get(rule.bucket);
    if (!scopes) leases.set(rule.bucket, (scopes = new Map()));
    let lease = scopes.get(scope);
    // A lease is for one window (its key names the window's start).
    if (lease?.windowStart !== windowStart) {
      const key = `ratelimit:${rule.bucket}:${scope}:${windowStart}`;
      lease = { key, windowStart, windowEnd: windowStart + windowMs, left: 0, reserved: 0, pending: null };
      scopes.set(scope, lease);
      sweep(windowStart);
    }
    return lease;
  }

  // Past windows' leases are dropped when a new window opens, so the map holds live scopes only.
  function sweep(windowStart: number): void {
    for (const scopes of leases.values())
      for (const [scope, lease] of scopes) if (lease.windowEnd <= windowStart) scopes.delete(scope);
  }

  function admit(lease: Lease, rule: RateLimitRule, at: number): RateLimitResult {
    const resetSeconds = Math.max(1, Math.ceil((lease.windowEnd - at) / 1000));
    if (lease.left === 0) {
      const result = { limit: rule.limit, remaining: 0, resetSeconds };
      const error = new RateLimitedError(
        `Rate limit of ${rule.limit} requests per ${rule.windowSeconds} s exceeded; retry in ${resetSeconds} s`,
        resetSeconds,
      );
      throw Object.assign(error, { rateLimit: result });
    }
    lease.left -= 1;
    const remaining = Math.max(0, rule.limit - lease.reserved + lease.left);
    return { limit: rule.limit, remaining, resetSeconds };
  }

  async function consume(scope: string, rule: RateLimitRule): Promise<RateLimitResult> {
    const windowMs = rule.windowSeconds * 1000;
    const lease = leaseFor(scope, rule, now());
    while (lease.left === 0 && lease.reserved < rule.limit) {
      if (!lease.pending)
        lease.pending = reserve(lease, rule, windowMs).finally(() => {
          lease.pending = null;
        });
      await lease.pending;
    }
    // Read again: the reservation may have taken a while.
    return admit(lease, rule, now());
  }

  /**
   * The same count with no promise when this replica's lease still holds a request: the auth
   * hook's synchronous path. undefined when a reservation (a store write) or a refusal is due;
   * the caller then awaits consume, which does either exactly as before.
   */
  consume.now = (scope: string, rule: RateLimitRule): RateLimitResult | undefined => {
    const at = now();
    const lease = leaseFor(scope, rule, at);
    return lease.left > 0 ? admit(lease, rule, at) : undefined;
  };
  return consume;
}
export type RateLimiter = ReturnType<typeof createRateLimiter>;
