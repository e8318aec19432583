import type { StateStore } from '#statestore';
import type { ReadModelInvalidation } from './invalidation.ts';
import { ReadModels, type AccountView, type ApiKeyView, type UserView, type VariableView } from './reader.ts';

export interface ReadCacheOptions {
  /** The safety net under invalidation: an entry is never older than this. At most 1000. */
  ttlMs: number;
  /** Past this many entries the cache starts over (keys that do not exist are never cached). */
  maxEntries?: number;
  now?: () => number;
}

type Kind = 'key' | 'user' | 'account' | 'variable';

interface Entry {
  value: unknown;
  expiresAt: number;
}

/**
 * The read models every authenticated request needs (key by hash, user, account) and the hot
 * variable read, kept in process for a short time. Any published change drops all of it, on
 * every replica; while the invalidation channel has a gap, every read goes to the store.
 * Writes decide from the event store, never from here, so a stale entry cannot corrupt one.
 */
export class CachedReadModels extends ReadModels {
  /** One map per kind: a look-up by the id as given builds no combined key string per request. */
  private readonly entries: Record<Kind, Map<string, Entry>> = {
    key: new Map(),
    user: new Map(),
    account: new Map(),
    variable: new Map(),
  };
  /** Bumped by every drop, so a read that was in flight across a change does not store what it saw. */
  private generation = 0;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  /** The cache's clock (injectable for tests); the auth hook reads it once per request. */
  readonly now: () => number;
  /** Look-ups answered from memory, read from the store, and whole-cache drops, since start (for /metrics). */
  readonly counts = { hits: 0, misses: 0, drops: 0 };

  constructor(
    store: StateStore,
    private readonly invalidation: ReadModelInvalidation,
    options: ReadCacheOptions,
  ) {
    super(store);
    this.ttlMs = Math.min(options.ttlMs, 1000);
    this.maxEntries = options.maxEntries ?? 10_000;
    this.now = options.now ?? Date.now;
    invalidation.subscribe(() => this.drop());
  }

  drop(): void {
    this.clear();
    this.generation++;
    this.counts.drops++;
  }

  /** Entries held now (for tests and metrics). */
  get size(): number {
    const { key, user, account, variable } = this.entries;
    return key.size + user.size + account.size + variable.size;
  }

  private clear(): void {
    for (const map of Object.values(this.entries)) map.clear();
  }

  override apiKeyByHash(hash: string): Promise<Extract<ApiKeyView, { status: 'active' }> | null> {
    return this.cached('key', hash, () => super.apiKeyByHash(hash));
  }

  override user(id: string): Promise<UserView | null> {
    return this.cached('user', id, () => super.user(id));
  }

  override account(id: string): Promise<AccountView | null> {
    return this.cached('account', id, () => super.account(id));
  }

  override variable(accountId: string, key: string): Promise<VariableView | null> {
    return this.cached('variable', `${accountId}\n${key}`, () => super.variable(accountId, key));
  }

  /**
   * What the cache holds now, with no store read and no promise: the auth hook's synchronous path
   * (apps/api/src/plugins/auth.ts). The same entries, TTL and invalidation as the async reads;
   * undefined when the entry is not held, has expired, or the invalidation channel has a gap, and
   * the caller then takes the async path, which reads the store and fills the cache as before.
   */
  peekApiKeyByHash(hash: string): Extract<ApiKeyView, { status: 'active' }> | undefined {
    return this.peek('key', hash);
  }

  peekUser(id: string): UserView | undefined {
    return this.peek('user', id);
  }

  peekAccount(id: string): AccountView | undefined {
    return this.peek('account', id);
  }

  /** The variable read without a promise, for GET /v1/variables/{key} (the same entries as `variable`). */
  peekVariable(accountId: string, key: string): VariableView | undefined {
    return this.peek('variable', `${accountId}\n${key}`);
  }

  /**
   * The current generation while invalidations are sure to arrive, else undefined. Anything
   * derived from peeked entries (the auth hook's remembered verdicts) is valid only while this
   * stays the same: every change, drop and gap moves it.
   */
  epoch(): number | undefined {
    return this.invalidation.live() ? this.generation : undefined;
  }

  /** When a held entry expires (0 when none is held), so a verdict derived from it expires no later. */
  expiresAt(kind: Exclude<Kind, 'variable'>, key: string): number {
    return this.entries[kind].get(key)?.expiresAt ?? 0;
  }

  private peek<T>(kind: Kind, key: string): T | undefined {
    if (!this.invalidation.live()) return undefined;
    const hit = this.entries[kind].get(key);
    if (hit === undefined || hit.expiresAt <= this.now()) return undefined;
    this.counts.hits++;
    return hit.value as T;
  }

  private async cached<T>(kind: Kind, key: string, load: () => Promise<T | null>): Promise<T | null> {
    const live = this.invalidation.live();
    const now = this.now();
    if (live) {
      const hit = this.entries[kind].get(key);
      if (hit !== undefined && hit.expiresAt > now) {
        this.counts.hits++;
        return hit.value as T;
      }
    }
    this.counts.misses++;
    if (!live) return load();
    const generation = this.generation;
    const value = await load();
    // A change announced while the read was in flight may have landed after it: keep nothing then.
    if (value !== null && generation === this.generation && this.invalidation.live()) {
      if (this.size >= this.maxEntries) this.clear();
      this.entries[kind].set(key, { value, expiresAt: now + this.ttlMs });
    }
    return value;
  }
}
