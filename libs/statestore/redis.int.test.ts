import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { UnavailableError, createLogger } from '#core';
import { services, uniqueSuffix } from '#test-support';
import { stateStoreContract } from './contract.ts';
import { createRedisStateStore, createStateStore } from './index.ts';

const prefix = `vigil-test:${uniqueSuffix()}:`;

// Each factory call is a separate connection on the same keyspace, so races cross connections.
stateStoreContract('redis', async () => createRedisStateStore({ url: services().REDIS_URL, keyPrefix: prefix }), {
  sharesData: true,
});

describe('redis state store', () => {
  const raw = () => new Redis(services().REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });

  afterAll(async () => {
    const client = raw();
    try {
      // Only this suite's keys: the prefix is unique to this run.
      const keys = await client.keys(`${prefix}*`);
      if (keys.length > 0) await client.del(...keys);
    } finally {
      client.disconnect();
    }
  });

  it('applies the key prefix to plain commands and to the Lua scripts', async () => {
    const store = createRedisStateStore({ url: services().REDIS_URL, keyPrefix: prefix });
    const client = raw();
    try {
      await store.set('plain', 'v');
      await store.write([{ op: 'zadd', key: 'queue', member: 'm', score: 1 }]);
      await store.claimDue('queue', 10, 100, 5);
      expect(await client.get(`${prefix}plain`)).toBe('v');
      expect(await client.zscore(`${prefix}queue`, 'm')).toBe('110');
      expect(await client.exists('plain', 'queue')).toBe(0);
    } finally {
      client.disconnect();
      await store.close();
    }
  });

  it('createStateStore picks Redis when a URL is given', async () => {
    const url = `${services().REDIS_URL}`;
    const store = createStateStore({
      redisUrl: url,
      dataDir: '/nonexistent/never-created',
      log: createLogger({ level: 'silent' }),
    });
    try {
      await store.ping();
    } finally {
      await store.close();
    }
  });

  it('fails promptly with UnavailableError when nothing listens', async () => {
    const store = createRedisStateStore({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 500 });
    try {
      const started = Date.now();
      await expect(store.ping()).rejects.toBeInstanceOf(UnavailableError);
      await expect(store.get('k')).rejects.toBeInstanceOf(UnavailableError);
      await expect(store.write([{ op: 'set', key: 'k', value: 'v' }])).rejects.toBeInstanceOf(UnavailableError);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await store.close();
    }
  });
});
