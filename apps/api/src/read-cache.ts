import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '#core';
import type { Platform } from '#platform';
import {
  CachedReadModels,
  createLocalInvalidation,
  createRedisInvalidation,
  ReadModels,
  type ReadModelInvalidation,
} from '#readmodels';
import type { ReadModelSync } from './commands.ts';
import type { ApiConfig } from './config.ts';

export interface ReadCache {
  readModels: ReadModels;
  invalidation: ReadModelInvalidation;
  /** The write path's sync, announcing each write once its read models include it. */
  publishing(sync: ReadModelSync): ReadModelSync;
}

/**
 * The API's read models, cached in process when that is safe: each write waits for its read
 * models and then announces the change to every replica (Redis pub/sub, or in process when
 * embedded), before it answers. A write that does not wait (VIGIL_READ_YOUR_WRITES_TIMEOUT_MS=0)
 * has nothing to announce after, so the cache is off then.
 */
export function createReadCache(config: ApiConfig, platform: Platform, log: Logger, metrics: Registry): ReadCache {
  const invalidation =
    config.REDIS_URL && platform.adapters.stateStore === 'redis'
      ? createRedisInvalidation({ url: config.REDIS_URL, prefix: config.REDIS_KEY_PREFIX, log })
      : createLocalInvalidation();
  const enabled = config.VIGIL_READ_CACHE_TTL_MS > 0 && config.VIGIL_READ_YOUR_WRITES_TIMEOUT_MS > 0;
  const readModels = enabled
    ? new CachedReadModels(platform.stateStore, invalidation, { ttlMs: config.VIGIL_READ_CACHE_TTL_MS })
    : new ReadModels(platform.stateStore);
  if (readModels instanceof CachedReadModels) registerMetrics(metrics, readModels, invalidation);
  const cacheLog = log.child({ component: 'read-cache' });
  return {
    readModels,
    invalidation,
    publishing(sync) {
      return {
        async waitFor(position, timeoutMs) {
          const included = await sync.waitFor(position, timeoutMs);
          // Published even after a timeout: it cannot hurt, and the TTL covers the rest.
          await invalidation.publish().catch((error: unknown) => {
            cacheLog.warn(
              { err: error, ttlMs: config.VIGIL_READ_CACHE_TTL_MS },
              'read-model change not announced; other replicas may answer from memory until the TTL',
            );
          });
          return included;
        },
      };
    },
  };
}

/** Read from the cache's own counters when scraped, so a request pays nothing for them. */
function registerMetrics(registry: Registry, cache: CachedReadModels, invalidation: ReadModelInvalidation): void {
  const counts = cache.counts;
  for (const [name, help, read] of [
    ['vigil_read_cache_hits_total', 'Read-model look-ups answered from memory', () => counts.hits],
    ['vigil_read_cache_misses_total', 'Read-model look-ups that went to the state store', () => counts.misses],
    [
      'vigil_read_cache_drops_total',
      'Times the whole read cache was dropped (a change, or a gap in invalidation)',
      () => counts.drops,
    ],
  ] as const) {
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  }
  new Gauge({
    name: 'vigil_read_cache_live',
    help: '1 while invalidations are sure to arrive (the cache may answer), 0 during a gap',
    registers: [registry],
    collect() {
      this.set(invalidation.live() ? 1 : 0);
    },
  });
}
