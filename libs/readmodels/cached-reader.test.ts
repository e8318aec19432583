import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStateStore, type StateStore } from '#statestore';
import { CachedReadModels } from './cached-reader.ts';
import { createLocalInvalidation, type ReadModelInvalidation } from './invalidation.ts';
import { keys } from './keys.ts';
import { ReadModels } from './reader.ts';

const stores: StateStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

function setUp(ttlMs = 1000) {
  const store = createSqliteStateStore({ path: ':memory:' });
  stores.push(store);
  let clock = 1_000_000;
  const invalidation = createLocalInvalidation();
  const cached = new CachedReadModels(store, invalidation, { ttlMs, now: () => clock });
  return {
    store,
    invalidation,
    cached,
    plain: new ReadModels(store),
    advance: (ms: number) => (clock += ms),
  };
}

const account = (id: string, name: string) =>
  ({ op: 'set', key: keys.doc('account', id), value: JSON.stringify({ status: 'active', id, name }) }) as const;

describe('cached read models', () => {
  it('answers from memory until a change is published, then from the store', async () => {
    const { store, invalidation, cached } = setUp();
    await store.write([account('a1', 'before')]);
    expect((await cached.account('a1'))?.name).toBe('before');
    // Changed behind the cache's back: still the cached document (this is what makes it fast).
    await store.write([account('a1', 'after')]);
    expect((await cached.account('a1'))?.name).toBe('before');
    await invalidation.publish();
    expect((await cached.account('a1'))?.name).toBe('after');
  });

  it('never holds an entry longer than the TTL, even when no change is published', async () => {
    const { store, cached, advance } = setUp(500);
    await store.write([account('a1', 'before')]);
    await cached.account('a1');
    await store.write([account('a1', 'after')]);
    advance(499);
    expect((await cached.account('a1'))?.name).toBe('before');
    advance(1);
    expect((await cached.account('a1'))?.name).toBe('after');
  });

  it('caps the TTL at one second', async () => {
    const store = createSqliteStateStore({ path: ':memory:' });
    stores.push(store);
    let clock = 0;
    const cached = new CachedReadModels(store, createLocalInvalidation(), { ttlMs: 60_000, now: () => clock });
    await store.write([account('a1', 'before')]);
    await cached.account('a1');
    await store.write([account('a1', 'after')]);
    clock = 1000;
    expect((await cached.account('a1'))?.name).toBe('after');
  });

  it('does not keep what a read saw when a change was published while it was in flight', async () => {
    const { store, invalidation, cached } = setUp();
    await store.write([account('a1', 'before')]);
    const inFlight = cached.account('a1');
    await invalidation.publish();
    await store.write([account('a1', 'after')]);
    await inFlight;
    expect((await cached.account('a1'))?.name).toBe('after');
  });

  it('does not cache what does not exist, so a new key works at once', async () => {
    const { store, cached } = setUp();
    expect(await cached.apiKeyByHash('h1')).toBeNull();
    await store.write([
      { op: 'set', key: keys.apiKeyByHash('h1'), value: 'k1' },
      { op: 'set', key: keys.doc('api-key', 'k1'), value: JSON.stringify({ status: 'active', keyId: 'k1' }) },
    ]);
    expect((await cached.apiKeyByHash('h1'))?.keyId).toBe('k1');
  });

  it('reads through while the invalidation channel has a gap', async () => {
    const { store } = setUp();
    let live = false;
    const listeners = new Set<() => void>();
    const gappy: ReadModelInvalidation = {
      publish: async () => undefined,
      subscribe: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
      live: () => live,
      close: async () => undefined,
    };
    const reads = new CachedReadModels(store, gappy, { ttlMs: 1000 });
    await store.write([account('a1', 'one')]);
    expect((await reads.account('a1'))?.name).toBe('one');
    expect(reads.size).toBe(0);
    live = true;
    expect((await reads.account('a1'))?.name).toBe('one');
    expect(reads.size).toBe(1);
  });

  it('peeks synchronously at the same entries: none before a read, gone on a change, at the TTL, in a gap', async () => {
    const { store, invalidation, cached, advance } = setUp(500);
    await store.write([account('a1', 'before')]);
    expect(cached.peekAccount('a1')).toBeUndefined();
    await cached.account('a1');
    expect(cached.peekAccount('a1')?.name).toBe('before');
    await invalidation.publish();
    expect(cached.peekAccount('a1')).toBeUndefined();
    await cached.account('a1');
    advance(499);
    expect(cached.peekAccount('a1')?.name).toBe('before');
    advance(1);
    expect(cached.peekAccount('a1')).toBeUndefined();

    let live = true;
    const gappy: ReadModelInvalidation = {
      publish: async () => undefined,
      subscribe: () => () => undefined,
      live: () => live,
      close: async () => undefined,
    };
    const reads = new CachedReadModels(store, gappy, { ttlMs: 1000 });
    await reads.account('a1');
    expect(reads.peekAccount('a1')).toBeDefined();
    live = false;
    expect(reads.peekAccount('a1')).toBeUndefined();
  });

  it('agrees with the uncached reader whenever every change is published (property)', async () => {
    const ids = ['a1', 'a2'];
    const step = fc.oneof(
      fc.record({ kind: fc.constant('read' as const), id: fc.constantFrom(...ids) }),
      fc.record({
        kind: fc.constant('write' as const),
        id: fc.constantFrom(...ids),
        doc: fc.option(fc.record({ status: fc.constantFrom('active', 'deleted'), name: fc.string({ maxLength: 4 }) })),
      }),
      fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 1500 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const { store, invalidation, cached, plain, advance } = setUp();
        for (const s of steps) {
          if (s.kind === 'tick') advance(s.ms);
          else if (s.kind === 'read') expect(await cached.account(s.id)).toEqual(await plain.account(s.id));
          else {
            const key = keys.doc('account', s.id);
            await store.write([s.doc ? { op: 'set', key, value: JSON.stringify(s.doc) } : { op: 'del', key }]);
            await invalidation.publish();
          }
        }
        await store.close();
        stores.splice(stores.indexOf(store), 1);
      }),
      { numRuns: 100 },
    );
  });
});
