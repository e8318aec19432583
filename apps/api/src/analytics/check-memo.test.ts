import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CachedReadModels, createLocalInvalidation, ReadModels, readModelKeys } from '#readmodels';
import { createSqliteStateStore, type StateStore } from '#statestore';
import { createCheckMemo } from './check-memo.ts';

const accountId = randomUUID();
let store: StateStore;
let clock: number;

async function putCheck(id: string, name: string, status = 'active') {
  const check = { id, name, checkType: 'API', activated: true, muted: false, frequency: 5, tags: [] };
  await store.set(readModelKeys.doc('check', id), JSON.stringify({ status, accountId, check }));
}

async function cached(ttlMs = 1000) {
  const invalidation = createLocalInvalidation();
  const readModels = new CachedReadModels(store, invalidation, { ttlMs, now: () => clock });
  await store.set(readModelKeys.doc('account', accountId), JSON.stringify({ status: 'active', id: accountId }));
  await readModels.account(accountId); // what the auth hook leaves in the read cache
  return { readModels, invalidation, memo: createCheckMemo(readModels) };
}

beforeEach(() => {
  store = createSqliteStateStore({ path: ':memory:' });
  clock = 1_000_000;
});
afterEach(() => store.close());

describe('analytics check memo', () => {
  it('answers a check it read without a promise, until a change is published', async () => {
    const { memo, invalidation } = await cached();
    const id = randomUUID();
    await putCheck(id, 'first');
    expect(memo.peek(id)).toBeUndefined();
    expect((await memo.read(id, accountId))?.check.name).toBe('first');
    expect(memo.peek(id)?.check.name).toBe('first');
    expect(Object.isFrozen(memo.peek(id))).toBe(true);

    await putCheck(id, 'renamed', 'deleted');
    await invalidation.publish();
    expect(memo.peek(id)).toBeUndefined();
    expect(await memo.read(id, accountId)).toBeNull();
  });

  it('forgets no later than the account entry of the read cache (its TTL)', async () => {
    const { memo } = await cached(500);
    const id = randomUUID();
    await putCheck(id, 'first');
    clock += 200; // the account entry was read 200 ms ago: 300 ms left
    await memo.read(id, accountId);
    clock += 299;
    expect(memo.peek(id)?.check.name).toBe('first');
    clock += 1;
    expect(memo.peek(id)).toBeUndefined();
    // Without the account entry held, nothing is remembered.
    await memo.read(id, accountId);
    expect(memo.peek(id)).toBeUndefined();
  });

  it('keeps nothing read across a change, nor a check that does not exist', async () => {
    const id = randomUUID();
    await putCheck(id, 'first');
    // The check's read waits on a gate, so a change lands (and the account is read again) while it is in flight.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const gated: StateStore = Object.create(store, {
      get: {
        value: async (key: string) => {
          if (key === readModelKeys.doc('check', id)) await gate;
          return store.get(key);
        },
      },
    });
    const invalidation = createLocalInvalidation();
    const readModels = new CachedReadModels(gated, invalidation, { ttlMs: 1000, now: () => clock });
    await store.set(readModelKeys.doc('account', accountId), JSON.stringify({ status: 'active', id: accountId }));
    const memo = createCheckMemo(readModels);
    const reading = memo.read(id, accountId);
    await invalidation.publish();
    await readModels.account(accountId);
    expect(memo.peek(id)).toBeUndefined(); // another request meanwhile: the memo is on the new epoch
    open();
    expect((await reading)?.check.name).toBe('first');
    expect(memo.peek(id)).toBeUndefined();
    await memo.read(id, accountId);
    expect(memo.peek(id)?.check.name).toBe('first');

    const missing = randomUUID();
    expect(await memo.read(missing, accountId)).toBeNull();
    await putCheck(missing, 'created');
    expect(memo.peek(missing)).toBeUndefined();
  });

  it('remembers nothing while the invalidation channel has a gap, or without the read cache', async () => {
    let live = true;
    const local = createLocalInvalidation();
    const invalidation = { ...local, live: () => live };
    const readModels = new CachedReadModels(store, invalidation, { ttlMs: 1000, now: () => clock });
    await store.set(readModelKeys.doc('account', accountId), JSON.stringify({ status: 'active', id: accountId }));
    await readModels.account(accountId);
    const memo = createCheckMemo(readModels);
    const id = randomUUID();
    await putCheck(id, 'first');
    live = false;
    await memo.read(id, accountId);
    expect(memo.peek(id)).toBeUndefined();
    live = true;
    await memo.read(id, accountId);
    expect(memo.peek(id)?.check.name).toBe('first');
    live = false;
    expect(memo.peek(id)).toBeUndefined();

    const plain = createCheckMemo(new ReadModels(store));
    expect((await plain.read(id, accountId))?.check.name).toBe('first');
    expect(plain.peek(id)).toBeUndefined();
  });
});
