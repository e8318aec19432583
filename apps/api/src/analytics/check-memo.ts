import { CachedReadModels, type CheckView, type ReadModels } from '#readmodels';

/** Past this many checks the memo starts over (as the read cache does past its size). */
const MAX_REMEMBERED = 10_000;

export interface CheckMemo {
  /** The check as remembered, without a promise; undefined when not held. */
  peek(id: string): CheckView | undefined;
  /**
   * The check from the store (null when there is none), remembered when that is safe; accountId is
   * the requesting account, whose read-cache entry bounds how long.
   */
  read(id: string, accountId: string): Promise<CheckView | null>;
}

/**
 * The analytics routes' check look-up: read from the state store and parsed on every request it
 * was a fifth of the route's own time. With the API's read cache, a check read from the store is
 * remembered while everything the read cache trusts still holds:
 * - the read cache's epoch is the same: every published change (a check updated, deleted or
 *   moved is one, announced on every replica before the write answers), drop and invalidation gap
 *   moves it, so the next request reads the store;
 * - no longer than the requesting account's read-cache entry (its TTL, at most 1 s), the same
 *   safety net under invalidation the read cache keeps.
 * Checks that do not exist are never remembered. Without the read cache (it is off when writes do
 * not wait for their read models) every request reads the store. Tenant isolation is decided by
 * the route on the check's accountId either way.
 */
export function createCheckMemo(readModels: ReadModels): CheckMemo {
  if (!(readModels instanceof CachedReadModels)) {
    return { peek: () => undefined, read: (id) => readModels.check(id) };
  }
  const cache = readModels;
  let epoch: number | undefined;
  const held = new Map<string, { view: CheckView; expiresAt: number }>();
  const current = () => {
    const now = cache.epoch();
    if (now !== epoch) {
      held.clear();
      epoch = now;
    }
    return now;
  };
  return {
    peek(id) {
      if (current() === undefined) return undefined;
      const entry = held.get(id);
      return entry !== undefined && entry.expiresAt > cache.now() ? entry.view : undefined;
    },
    async read(id, accountId) {
      const before = current();
      const view = await readModels.check(id);
      // A change announced while the read was in flight may have landed after it: keep nothing then.
      if (view === null || before === undefined || current() !== before) return view;
      // 0 when the account's entry is not held: then the entry is never served.
      const expiresAt = cache.expiresAt('account', accountId);
      if (held.size >= MAX_REMEMBERED) held.clear();
      // Frozen: one object now answers many requests, and nothing downstream may change it for the next.
      held.set(id, { view: Object.freeze(view), expiresAt });
      return view;
    },
  };
}
