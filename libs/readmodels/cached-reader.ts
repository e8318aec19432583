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
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every drop, so a read that was in flight across a change does not store what it saw. */
  private generation = 0;
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
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
    this.entries.clear();
    this.generation++;
    this.counts.drops++;
  }

  /** Entries held now (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }

  override apiKeyByHash(hash: string): Promise<Extract<ApiKeyView, { status: 'active' }> | null> {
    return this.cached(`key\n${hash}`, () => super.apiKeyByHash(hash));
  }

  override user(id: string): Promise<UserView | null> {
    return this.cached(`user\n${id}`, () => super.user(id));
  }

  override account(id: string): Promise<AccountView | null> {
    return this.cached(`account\n${id}`, () => super.account(id));
  }

  override variable(accountId: string, key: string): Promise<VariableView | null> {
    return this.cached(`variable\n${accountId}\n${key}`, () => super.variable(accountId, key));
  }

  private async cached<T>(key: string, load: () => Promise<T | null>): Promise<T | null> {
    const live = this.invalidation.live();
    const now = this.now();
    if (live) {
      const hit = this.entries.get(key);
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
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(key, { value, expiresAt: now + this.ttlMs });
    }
    return value;
  }
}
