import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { services, uniqueSuffix } from '#test-support';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

const SECRET = 'sk_live_REDIS-NO-LEAK-91ab';

describe('secrets at rest (Redis)', () => {
  let vigil: TestVigil;
  const prefix = `vigil-test-${uniqueSuffix()}:`;
  beforeAll(async () => {
    vigil = await startVigil({ env: { REDIS_URL: services().REDIS_URL, REDIS_KEY_PREFIX: prefix } });
  });
  afterAll(async () => {
    await vigil?.stop();
  });

  it('no Redis key under the deployment prefix holds a secret in plaintext', async () => {
    const a = await createAccount(vigil);
    await a.owner.post('/v1/variables', { key: 'TOKEN', value: SECRET, secret: true });
    await a.owner.post('/v1/variables', { key: 'PLAIN', value: 'visible-value' });
    const redis = new Redis(services().REDIS_URL);
    try {
      const keys = await redis.keys(`${prefix}*`);
      expect(keys.length).toBeGreaterThan(5);
      let sawPlain = false;
      for (const key of keys) {
        const type = await redis.type(key);
        const content =
          type === 'string'
            ? String(await redis.get(key))
            : type === 'hash'
              ? JSON.stringify(await redis.hgetall(key))
              : type === 'zset'
                ? JSON.stringify(await redis.zrange(key, '0', '-1'))
                : '';
        expect(content.includes(SECRET), key).toBe(false);
        if (content.includes('visible-value')) sawPlain = true;
      }
      expect(sawPlain).toBe(true);
    } finally {
      redis.disconnect();
    }
  });
});
