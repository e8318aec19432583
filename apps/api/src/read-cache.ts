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
export function createReadCache(config: ApiConfig, platform: Platform, log: Logger): ReadCache {
  const invalidation =
    config.REDIS_URL && platform.adapters.stateStore === 'redis'
      ? createRedisInvalidation({ url: config.REDIS_URL, prefix: config.REDIS_KEY_PREFIX, log })
      : createLocalInvalidation();
  const enabled = config.VIGIL_READ_CACHE_TTL_MS > 0 && config.VIGIL_READ_YOUR_WRITES_TIMEOUT_MS > 0;
  const readModels = enabled
    ? new CachedReadModels(platform.stateStore, invalidation, { ttlMs: config.VIGIL_READ_CACHE_TTL_MS })
    : new ReadModels(platform.stateStore);
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
