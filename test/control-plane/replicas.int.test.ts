import { afterAll, describe, expect, it } from 'vitest';
import { services, uniqueSuffix } from '#test-support';
import { client, createAccount, startVigil, type TestVigil } from '#test-vigil';

describe('two API replicas on one Redis', () => {
  const started: TestVigil[] = [];
  afterAll(async () => {
    for (const vigil of started) await vigil.stop();
  });

  it('share rate-limit counters and read models (a key made on one works on the other)', async () => {
    const env = {
      REDIS_URL: services().REDIS_URL,
      REDIS_KEY_PREFIX: `vigil-test-${uniqueSuffix()}:`,
      VIGIL_RATE_LIMIT_PER_MINUTE: '6',
    };
    const first = await startVigil({ env });
    started.push(first);
    // The second replica shares the state store; its writes go to its own embedded event store,
    // so this test only reads through it.
    const second = await startVigil({ env: { ...env, VIGIL_STANDALONE_APPS: 'api' } });
    started.push(second);
    const account = await createAccount(first);
    const viaFirst = first.as(account.ownerKey, account.accountId);
    const viaSecond = client(second.url, account.ownerKey, account.accountId);

    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await viaFirst.get('/v1/accounts/me')).status);
    for (let i = 0; i < 4; i++) statuses.push((await viaSecond.get('/v1/accounts/me')).status);
    // createAccount made no account-scoped request, so the window holds exactly these eight.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    const limited = await viaSecond.get('/v1/accounts/me');
    expect(limited.headers.get('retry-after')).not.toBeNull();
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
  });
});
