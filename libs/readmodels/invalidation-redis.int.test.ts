import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { createRedisStateStore } from '#statestore';
import { services, uniqueSuffix } from '#test-support';
import { CachedReadModels } from './cached-reader.ts';
import type { ReadModelInvalidation } from './invalidation.ts';
import { createRedisInvalidation } from './invalidation-redis.ts';
import { keys } from './keys.ts';

const log = createLogger({ level: 'silent' });
const prefix = `vigil-test-invalidation-${uniqueSuffix()}:`;
const opened: { close(): Promise<void> }[] = [];
const admin = new Redis(services().REDIS_URL);

afterAll(async () => {
  for (const thing of opened) await thing.close();
  const leftovers = await admin.keys(`${prefix}*`);
  if (leftovers.length > 0) await admin.del(...leftovers);
  admin.disconnect();
});

function open(): ReadModelInvalidation {
  const invalidation = createRedisInvalidation({ url: services().REDIS_URL, prefix, log });
  opened.push(invalidation);
  return invalidation;
}

/** Resolves at the next listener call for which condition holds. */
function next(invalidation: ReadModelInvalidation, condition: () => boolean = () => true): Promise<void> {
  return new Promise((resolve) => {
    const off = invalidation.subscribe(() => {
      if (!condition()) return;
      off();
      resolve();
    });
  });
}

async function live(invalidation: ReadModelInvalidation): Promise<void> {
  if (!invalidation.live()) await next(invalidation, () => invalidation.live());
}

/** Kills the subscriber connections of this prefix, as a network fault or a Redis restart would. */
async function killSubscribers(): Promise<number> {
  const list = (await admin.client('LIST')) as string;
  const ids = list
    .split('\n')
    .filter((line) => line.includes(` name=${prefix}read-model-invalidation:sub `))
    .map((line) => /\bid=(\d+)/.exec(line)![1]!);
  for (const id of ids) await admin.client('KILL', 'ID', id);
  return ids.length;
}

describe('read-model invalidation on Redis', () => {
  it('carries a change from one replica to the other', async () => {
    const a = open();
    const b = open();
    await Promise.all([live(a), live(b)]);
    const heard = next(b);
    await a.publish();
    await heard;
  });

  it('answers a publish only once every live replica has run its listeners', async () => {
    const a = open();
    const replicas = [open(), open(), open()];
    await Promise.all([a, ...replicas].map(live));
    for (let round = 0; round < 20; round++) {
      const heard = replicas.map(() => false);
      const offs = replicas.map((replica, i) => replica.subscribe(() => (heard[i] = true)));
      await a.publish();
      // No turn of the event loop between the answer and this check: the drops happened before it.
      expect(heard).toEqual([true, true, true]);
      for (const off of offs) off();
    }
  });

  it('is not live while its subscriber is away, and drops caches at both edges', async () => {
    const a = open();
    const b = open();
    await Promise.all([live(a), live(b)]);
    const down = next(b, () => !b.live());
    expect(await killSubscribers()).toBeGreaterThanOrEqual(2);
    await down;
    expect(b.live()).toBe(false);
    await live(b);
    // Resubscribed: a change published now reaches it again.
    const heard = next(b);
    await live(a);
    await a.publish();
    await heard;
  });

  it('is never live without Redis, refuses to publish, and still closes at once', async () => {
    const nowhere = createRedisInvalidation({ url: 'redis://127.0.0.1:1', prefix, log, commandTimeoutMs: 200 });
    expect(nowhere.live()).toBe(false);
    await expect(nowhere.publish()).rejects.toThrow(/unavailable/i);
    expect(nowhere.live()).toBe(false);
    await nowhere.close();
  });

  it('lets a cache answer from memory only while live: across a lost subscriber it reads the store', async () => {
    const store = createRedisStateStore({ url: services().REDIS_URL, keyPrefix: prefix, log });
    opened.push(store);
    const writer = open();
    const reader = open();
    await Promise.all([live(writer), live(reader)]);
    const reads = new CachedReadModels(store, reader, { ttlMs: 1000 });
    const doc = (name: string) => JSON.stringify({ status: 'active', id: 'acct', name });
    await store.set(keys.doc('account', 'acct'), doc('one'));
    expect((await reads.account('acct'))?.name).toBe('one');
    expect(reads.size).toBe(1);

    // A change published on the writer drops the reader's entry once delivered.
    await store.set(keys.doc('account', 'acct'), doc('two'));
    const delivered = next(reader);
    await writer.publish();
    await delivered;
    expect((await reads.account('acct'))?.name).toBe('two');

    // The subscriber goes away: whatever is published meanwhile is lost, so the reader must not use memory.
    const down = next(reader, () => !reader.live());
    await killSubscribers();
    await down;
    expect(reads.size).toBe(0);
    await store.set(keys.doc('account', 'acct'), doc('three'));
    await writer.publish().catch(() => undefined);
    if (!reader.live()) expect((await reads.account('acct'))?.name).toBe('three');
    await live(reader);
    expect((await reads.account('acct'))?.name).toBe('three');
  });
});
