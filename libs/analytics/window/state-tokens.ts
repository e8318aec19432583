import { randomUUID } from 'node:crypto';
import type { StateStore } from '#statestore';
import type { ChangeTokens, CheckKey } from './tokens.ts';

const DAY_MS = 86_400_000;

/**
 * Change tokens in the state store (Redis when distributed, SQLite embedded): one key per check,
 * expiring a while after the check's last write, since a check with no token is simply read from
 * the engine. One renewal sets every key of a batch to one new token with setMany: a failure
 * partway fails the insert, whose retry renews them all again.
 */
export function createStateStoreTokens(state: StateStore, options: { ttlMs?: number } = {}): ChangeTokens {
  const ttlMs = options.ttlMs ?? 35 * DAY_MS;
  const keyOf = (key: CheckKey) => `analytics-changed:${key.accountId}:${key.checkId}`;
  return {
    async read(keys) {
      if (keys.length === 1) return [await state.get(keyOf(keys[0]!))];
      return state.getMany(keys.map(keyOf));
    },
    async renew(keys) {
      await state.setMany(keys.map(keyOf), randomUUID(), { ttlMs });
    },
    keyOf,
  };
}
