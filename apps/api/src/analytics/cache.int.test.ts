import { describe, expect, it, vi } from 'vitest';
import type { AnalyticsAnswer } from '#analytics';
import { createLogger } from '#core';
import { createRedisStateStore } from '#statestore';
import { services, uniqueSuffix } from '#test-support';
import { createAnalyticsCache } from './cache.ts';

// Two API replicas = two Redis connections: an answer one computed is served by the other.
describe('analytics cache on Redis', () => {
  it('is shared between replicas and expires after its ttl', async () => {
    const keyPrefix = `vigil-test-${uniqueSuffix()}:`;
    const log = createLogger({ level: 'silent' });
    const [one, two] = [0, 1].map(() => createRedisStateStore({ url: services().REDIS_URL, keyPrefix }));
    const answer = (label: string): AnalyticsAnswer => ({
      from: label,
      to: label,
      series: [],
      pagination: { page: 1, limit: 10 },
      metadata: {},
    });
    const first = createAnalyticsCache(one!, { ttlMs: 300, log });
    const second = createAnalyticsCache(two!, { ttlMs: 300, log });
    expect((await first.answer('analytics-cache:a:c:k', async () => answer('replica one'))).from).toBe('replica one');
    // The write is not awaited by the reply (it starts after it): the other replica sees it once it lands.
    await vi.waitFor(async () => expect(await two!.get('analytics-cache:a:c:k')).not.toBeNull());
    expect((await second.answer('analytics-cache:a:c:k', async () => answer('replica two'))).from).toBe('replica one');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await second.answer('analytics-cache:a:c:k', async () => answer('replica two'))).from).toBe('replica two');
    await Promise.all([one!.close(), two!.close()]);
  });
});
