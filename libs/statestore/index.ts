import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '#core';
import type { StateStore } from './port.ts';
import { createRedisStateStore } from './redis.ts';
import { createSqliteStateStore } from './sqlite.ts';

export type { StateStore, WriteOp, ScoredMember, LateRule, ClaimedRun } from './port.ts';
export { createRedisStateStore, type RedisStateStoreOptions } from './redis.ts';
export { createSqliteStateStore, type SqliteStateStore, type SqliteStateStoreOptions } from './sqlite.ts';
// The contract suite (./contract.ts) is not re-exported: it imports vitest, a dev dependency.

export interface StateStoreConfig {
  /** When set, the distributed adapter; otherwise the embedded SQLite file. */
  redisUrl?: string;
  /** Prefix of every Redis key. */
  keyPrefix?: string;
  dataDir: string;
  fileName?: string;
  log: Logger;
}

/** Picks the adapter from configuration: Redis when REDIS_URL is set, else SQLite in DATA_DIR. */
export function createStateStore(config: StateStoreConfig): StateStore {
  const log = config.log.child({ component: 'statestore' });
  if (config.redisUrl) return createRedisStateStore({ url: config.redisUrl, keyPrefix: config.keyPrefix, log });
  mkdirSync(config.dataDir, { recursive: true });
  return createSqliteStateStore({ path: join(config.dataDir, config.fileName ?? 'state.sqlite'), log });
}
