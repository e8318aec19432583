import type { AnalyticsStore } from '../port.ts';

export interface CheckKey {
  accountId: string;
  checkId: string;
}

/**
 * A change token per check: renewed after every write of the check's results, so a reader that
 * holds the check's rows tagged with the token it read before loading them knows they are still
 * what the engine holds while the token is unchanged. Kept where every API replica and every
 * writer meet (the state store). A check with no token has had no write since tokens were kept
 * (or its token expired): readers never serve it from memory.
 */
export interface ChangeTokens {
  /** Each key's token, null where none is recorded. */
  read(keys: readonly CheckKey[]): Promise<(string | null)[]>;
  /** Gives each key a new token, different from every earlier one. */
  renew(keys: readonly CheckKey[]): Promise<void>;
  /**
   * The state-store key a check's token is kept under, when tokens live there: a caller that
   * reads other keys first (the API's answer cache) reads the token in the same round trip.
   */
  keyOf?(key: CheckKey): string;
}

/** A check's token as read at the start of a request, so the window need not read it again. */
export interface KnownToken {
  token: string | null;
}

/**
 * The store with insert renewing the tokens of the checks written, after the write is durable.
 * A renewal that fails fails the insert, which its caller retries (the ingestor redelivers the
 * batch; inserts are idempotent), so no write stays without a renewal once the store is back.
 */
export function withChangeTokens(store: AnalyticsStore, tokens: ChangeTokens): AnalyticsStore {
  return {
    ...store,
    async insert(results) {
      await store.insert(results);
      // Checks by account: no key string or object per result, one per check.
      const byAccount = new Map<string, Set<string>>();
      for (const result of results) {
        let checks = byAccount.get(result.accountId);
        if (checks === undefined) byAccount.set(result.accountId, (checks = new Set()));
        checks.add(result.checkId);
      }
      const keys: CheckKey[] = [];
      for (const [accountId, checks] of byAccount) for (const checkId of checks) keys.push({ accountId, checkId });
      if (keys.length > 0) await tokens.renew(keys);
    },
  };
}
