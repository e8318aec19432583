import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RateLimitedError, createLogger } from '#core';
import { createRedisStateStore, createSqliteStateStore, type StateStore } from '#statestore';
import { services, uniqueSuffix } from '#test-support';
import { LEASE_DIVISOR, createRateLimiter, type RateLimitResult, type RateLimitRule } from './rate-limit.ts';

const prefix = `vigil-test-ratelimit:${uniqueSuffix()}:`;
const log = createLogger({ level: 'silent' });
const opened: StateStore[] = [];
const redisStore = () => {
  const store = createRedisStateStore({ url: services().REDIS_URL, keyPrefix: prefix, log });
  opened.push(store);
  return store;
};
const dir = mkdtempSync(join(tmpdir(), 'vigil-ratelimit-'));

afterAll(async () => {
  for (const store of opened) await store.close();
  rmSync(dir, { recursive: true, force: true });
  const client = new Redis(services().REDIS_URL);
  try {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length > 0) await client.del(...keys);
  } finally {
    client.disconnect();
  }
});

type Outcome = { admitted: true; headers: RateLimitResult } | { admitted: false; headers: RateLimitResult };

async function attempt(consume: ReturnType<typeof createRateLimiter>, scope: string, rule: RateLimitRule) {
  try {
    return { admitted: true, headers: await consume(scope, rule) } as Outcome;
  } catch (error) {
    if (!(error instanceof RateLimitedError)) throw error;
    return {
      admitted: false,
      headers: (error as RateLimitedError & { rateLimit: RateLimitResult }).rateLimit,
    } as Outcome;
  }
}

/** The counter as it was before leases: one INCR per request. The lease limiter must agree with it. */
function perRequestReference(store: StateStore, now: () => number) {
  return async (scope: string, rule: RateLimitRule): Promise<Outcome> => {
    const windowMs = rule.windowSeconds * 1000;
    const windowStart = Math.floor(now() / windowMs) * windowMs;
    const count = await store.incr(`ref:${rule.bucket}:${scope}:${windowStart}`, 1, { ttlMs: windowMs + 1000 });
    const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - now()) / 1000));
    const headers = { limit: rule.limit, remaining: Math.max(0, rule.limit - count), resetSeconds };
    return { admitted: count <= rule.limit, headers };
  };
}

/** A small deterministic generator, so a failure replays. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe.each([
  ['redis', redisStore],
  ['sqlite', () => createSqliteStateStore({ path: join(dir, `${uniqueSuffix()}.sqlite`), log })],
] as const)('rate limiter on %s, one replica', (_name, open) => {
  it('admits, refuses and reports headers exactly as one INCR per request did', async () => {
    const store = open();
    let clock = Date.UTC(2026, 0, 1, 0, 0, 5);
    const now = () => clock;
    const leased = createRateLimiter(store, now);
    const reference = perRequestReference(store, now);
    const rule = { bucket: 'default', limit: 500, windowSeconds: 60 };
    const scope = `acct-${uniqueSuffix()}`;
    // Across a window boundary too: the second window starts from zero on both.
    for (let i = 0; i < 1_300; i++) {
      if (i === 650) clock += 60_000;
      clock += 10;
      const fast = await attempt(leased, scope, rule);
      const slow = await reference(scope, rule);
      expect(fast, `request ${i}`).toEqual(slow);
    }
    if (open !== redisStore) await store.close();
  });

  it('the synchronous path (a lease in hand) and the async one together count exactly as one INCR per request', async () => {
    const store = open();
    let clock = Date.UTC(2026, 0, 1, 0, 0, 5);
    const now = () => clock;
    const leased = createRateLimiter(store, now);
    const reference = perRequestReference(store, now);
    const rule = { bucket: 'default', limit: 500, windowSeconds: 60 };
    const scope = `acct-${uniqueSuffix()}`;
    let synchronous = 0;
    for (let i = 0; i < 1_300; i++) {
      if (i === 650) clock += 60_000;
      clock += 10;
      const held = leased.now(scope, rule);
      if (held !== undefined) synchronous++;
      const fast = held === undefined ? await attempt(leased, scope, rule) : { admitted: true, headers: held };
      expect(fast, `request ${i}`).toEqual(await reference(scope, rule));
    }
    // Most requests are admitted from a lease; reservations, and every refusal, go the async way.
    expect(synchronous).toBeGreaterThan(600);
    expect(synchronous).toBeLessThan(1_000);
    if (open !== redisStore) await store.close();
  });

  it('concurrent requests share one reservation and never admit past the limit', async () => {
    const store = open();
    const consume = createRateLimiter(store);
    const rule = { bucket: 'burst', limit: 300, windowSeconds: 3600 };
    const outcomes = await Promise.all(Array.from({ length: 400 }, () => attempt(consume, 'acct-burst', rule)));
    expect(outcomes.filter((o) => o.admitted)).toHaveLength(300);
    const remaining = outcomes.filter((o) => o.admitted).map((o) => o.headers.remaining);
    expect(new Set(remaining).size).toBe(300); // each admitted request saw its own remaining count
    expect(Math.min(...remaining)).toBe(0);
    if (open !== redisStore) await store.close();
  });
});

describe('rate limiter, two replicas on one Redis', () => {
  it('holds the limit within the stated tolerance over a minute, never above it', async () => {
    const limit = 6_000;
    const rule = { bucket: 'default', limit, windowSeconds: 60 };
    const clockStart = Date.UTC(2026, 0, 1, 0, 1, 0);
    let clock = clockStart;
    const replicas = [createRateLimiter(redisStore(), () => clock), createRateLimiter(redisStore(), () => clock)];
    const scope = `acct-${uniqueSuffix()}`;
    const random = seeded(16);
    let admitted = 0;
    const lastRemaining = [limit, limit];
    // 9,000 requests over the minute in bursts of 1–20 concurrent ones; replica 1 takes most of
    // the traffic early and falls quiet after 4,000, leaving its lease unused.
    for (let sent = 0; sent < 9_000;) {
      const size = 1 + Math.floor(random() * 20);
      const quiet = sent > 4_000;
      const which = quiet || random() < 0.3 ? 0 : 1;
      const burst = await Promise.all(Array.from({ length: size }, () => attempt(replicas[which]!, scope, rule)));
      for (const outcome of burst) {
        if (outcome.admitted) admitted++;
        // Remaining never rises within a window, on either replica.
        expect(outcome.headers.remaining).toBeLessThanOrEqual(lastRemaining[which]!);
        lastRemaining[which] = outcome.headers.remaining;
        if (!outcome.admitted) expect(outcome.headers.remaining).toBe(0);
      }
      // …and stays within the tolerance of what is truly left (the other replica's lease is unseen).
      const truly = limit - admitted;
      expect(Math.abs(lastRemaining[which]! - truly)).toBeLessThanOrEqual(0.1 * limit);
      sent += size;
      clock = clockStart + Math.floor((sent / 9_000) * 59_000);
    }
    const shortfall = (limit - admitted) / limit;
    console.log(
      `two replicas, limit ${limit}/min: admitted ${admitted} (${(shortfall * 100).toFixed(2)} % under; bound ${(200 / LEASE_DIVISOR).toFixed(2)} %)`,
    );
    expect(admitted).toBeLessThanOrEqual(limit);
    expect(shortfall).toBeLessThanOrEqual(0.1);
    expect(shortfall).toBeLessThanOrEqual(2 / LEASE_DIVISOR);
    // The next minute starts afresh on both replicas.
    clock = clockStart + 60_000;
    expect((await attempt(replicas[1]!, scope, rule)).headers.remaining).toBe(limit - 1);
  });
});
