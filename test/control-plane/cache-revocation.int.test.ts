import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { services, uniqueSuffix } from '#test-support';
import { client, createAccount, startVigil, type ApiClient, type TestVigil } from '#test-vigil';

/**
 * Two API replicas on one Redis, each with its in-process read cache. Changes are made through
 * the first (it runs the projector); the second must refuse at once, although it answered the
 * same key from memory a moment before. Nothing here waits beyond the write's own answer.
 */
describe('read cache: revocation across two API replicas on Redis', () => {
  const prefix = `vigil-test-cache-${uniqueSuffix()}:`;
  let first: TestVigil;
  let second: TestVigil;
  let admin: Redis;

  beforeAll(async () => {
    const env = { REDIS_URL: services().REDIS_URL, REDIS_KEY_PREFIX: prefix };
    first = await startVigil({ env });
    // Shares the state store; its own embedded event store takes no write in this suite.
    second = await startVigil({ env: { ...env, VIGIL_STANDALONE_APPS: 'api' } });
    admin = new Redis(services().REDIS_URL);
  });
  afterAll(async () => {
    await second?.stop();
    await first?.stop();
    if (admin) {
      const leftovers = await admin.keys(`${prefix}*`);
      if (leftovers.length > 0) await admin.del(...leftovers);
      admin.disconnect();
    }
  });

  async function cacheHits(vigil: TestVigil): Promise<number> {
    const text = await (await fetch(`${vigil.url}/metrics`)).text();
    return Number(/^vigil_read_cache_hits_total (\d+)/m.exec(text)?.[1] ?? NaN);
  }

  /** Asks the second replica until it answers from memory, so the refusal below is the cache's doing. */
  async function warm(api: ApiClient, path: string): Promise<void> {
    const before = await cacheHits(second);
    for (let i = 0; i < 20 && (await cacheHits(second)) === before; i++) expect((await api.get(path)).status).toBe(200);
    expect(await cacheHits(second)).toBeGreaterThan(before);
  }

  async function member(owner: ApiClient, accountId: string, role: string) {
    const made = await owner.post('/v1/users', { email: `m-${uniqueSuffix()}@example.com`, role });
    expect(made.status).toBe(201);
    return { id: made.body.user.id as string, viaSecond: client(second.url, made.body.apiKey.key, accountId) };
  }

  it('a deleted key is refused by the other replica at once', async () => {
    const a = await createAccount(first);
    const extra = await a.owner.post('/v1/api-keys', { name: 'laptop', type: 'user' });
    expect(extra.status).toBe(201);
    const viaSecond = client(second.url, extra.body.key, a.accountId);
    await warm(viaSecond, '/v1/accounts/me');
    expect((await a.owner.delete(`/v1/api-keys/${extra.body.id}`)).status).toBe(204);
    expect((await viaSecond.get('/v1/accounts/me')).status).toBe(401);
  });

  it('a removed user is refused by the other replica at once', async () => {
    const a = await createAccount(first);
    const user = await member(a.owner, a.accountId, 'READ_WRITE');
    await warm(user.viaSecond, '/v1/accounts/me');
    expect((await a.owner.delete(`/v1/users/${user.id}`)).status).toBe(204);
    expect((await user.viaSecond.get('/v1/accounts/me')).status).toBe(403);
  });

  it('a demoted user loses the higher role on the other replica at once', async () => {
    const a = await createAccount(first);
    const user = await member(a.owner, a.accountId, 'READ_WRITE');
    await warm(user.viaSecond, '/v1/accounts/me');
    // READ_WRITE passes the role check (then 404: no such variable); refused before any write once demoted.
    expect((await user.viaSecond.delete('/v1/variables/NO_SUCH')).status).toBe(404);
    expect((await a.owner.patch(`/v1/users/${user.id}`, { role: 'READ_ONLY' })).status).toBe(200);
    const refused = await user.viaSecond.delete('/v1/variables/NO_SUCH');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/READ_ONLY/);
  });

  it('a changed variable reads back changed from the other replica at once', async () => {
    const a = await createAccount(first);
    expect((await a.owner.post('/v1/variables', { key: 'CACHED', value: 'one' })).status).toBe(201);
    const viaSecond = client(second.url, a.ownerKey, a.accountId);
    await warm(viaSecond, '/v1/variables/CACHED');
    expect((await a.owner.put('/v1/variables/CACHED', { value: 'two' })).status).toBe(200);
    expect((await viaSecond.get('/v1/variables/CACHED')).body.value).toBe('two');
    expect((await a.owner.delete('/v1/variables/CACHED')).status).toBe(204);
    expect((await viaSecond.get('/v1/variables/CACHED')).status).toBe(404);
  });

  it('a changed account reads back changed from the other replica at once, in the bytes the serializer writes', async () => {
    const a = await createAccount(first);
    const viaSecond = client(second.url, a.ownerKey, a.accountId);
    // GET /v1/accounts/{id} writes the same schema through the route serializer on every request.
    const raw = async (path: string) => {
      const response = await fetch(second.url + path, {
        headers: { authorization: `Bearer ${a.ownerKey}`, 'x-service-account': a.accountId },
      });
      return { text: await response.text(), type: response.headers.get('content-type') };
    };
    await warm(viaSecond, '/v1/accounts/me');
    const before = await raw('/v1/accounts/me');
    expect(before).toEqual(await raw(`/v1/accounts/${a.accountId}`));
    expect(before.type).toBe('application/json; charset=utf-8');
    expect((await a.owner.patch('/v1/accounts/me', { name: 'Renamed elsewhere' })).status).toBe(200);
    const after = await raw('/v1/accounts/me');
    expect(JSON.parse(after.text).name).toBe('Renamed elsewhere');
    expect(after).toEqual(await raw(`/v1/accounts/${a.accountId}`));
  });

  it('a held variable is sent in the bytes the serializer writes, masked per caller, and changed at once', async () => {
    const a = await createAccount(first);
    expect((await a.owner.post('/v1/variables', { key: 'HELD', value: 'old value', locked: true })).status).toBe(201);
    const reader = await member(a.owner, a.accountId, 'READ_ONLY');
    const ownersOtherKey = (await a.owner.post('/v1/api-keys', { name: 'r', type: 'user' })).body.key as string;
    const raw = async (key: string) => {
      const response = await fetch(`${second.url}/v1/variables/HELD`, {
        headers: { authorization: `Bearer ${key}`, 'x-service-account': a.accountId },
      });
      return { status: response.status, text: await response.text(), type: response.headers.get('content-type') };
    };
    // The first answer is read from the store and written by the serializer; later ones are held.
    const cold = await raw(ownersOtherKey);
    await warm(client(second.url, ownersOtherKey, a.accountId), '/v1/variables/HELD');
    expect(await raw(ownersOtherKey)).toEqual(cold);
    expect(cold).toEqual({
      status: 200,
      text: '{"key":"HELD","value":"old value","locked":true,"secret":false}',
      type: 'application/json; charset=utf-8',
    });
    // The same cached document, masked for a reader who is neither its creator nor an admin.
    await warm(reader.viaSecond, '/v1/variables/HELD');
    expect((await reader.viaSecond.get('/v1/variables/HELD')).body.value).toBe('********');
    // Same length on purpose: the body must die with the document, whatever it says.
    expect((await a.owner.put('/v1/variables/HELD', { value: 'new value' })).status).toBe(200);
    expect(JSON.parse((await raw(ownersOtherKey)).text).value).toBe('new value');
    await warm(client(second.url, ownersOtherKey, a.accountId), '/v1/variables/HELD');
    expect(JSON.parse((await raw(ownersOtherKey)).text).value).toBe('new value');
  });

  it('still refuses at once after the second replica lost and regained its subscriber', async () => {
    const a = await createAccount(first);
    const keys = [];
    for (const name of ['during', 'after']) {
      const made = await a.owner.post('/v1/api-keys', { name, type: 'user' });
      expect(made.status).toBe(201);
      keys.push({ id: made.body.id as string, viaSecond: client(second.url, made.body.key, a.accountId) });
    }
    const [during, after] = keys as [(typeof keys)[0], (typeof keys)[0]];
    await warm(during.viaSecond, '/v1/accounts/me');
    await warm(after.viaSecond, '/v1/accounts/me');

    // Both replicas' subscribers share the prefix; kill them all, as a network blip would.
    const list = (await admin.client('LIST')) as string;
    const ids = [...list.matchAll(/\bid=(\d+)\b[^\n]*\bname=(\S+)/g)]
      .filter(([, , name]) => name === `${prefix}read-model-invalidation:sub`)
      .map(([, id]) => id!);
    expect(ids).toHaveLength(2);
    for (const id of ids) await admin.client('KILL', 'ID', id);

    // Whatever the second replica's subscriber is doing now (away or back), it must not answer from memory.
    expect((await a.owner.delete(`/v1/api-keys/${during.id}`)).status).toBe(204);
    expect((await during.viaSecond.get('/v1/accounts/me')).status).toBe(401);

    // Back for sure once Redis lists both subscribers on the channel again.
    for (;;) {
      const [, count] = (await admin.pubsub('NUMSUB', `${prefix}read-models:changed`)) as [string, number];
      if (Number(count) === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await warm(after.viaSecond, '/v1/accounts/me');
    expect((await a.owner.delete(`/v1/api-keys/${after.id}`)).status).toBe(204);
    expect((await after.viaSecond.get('/v1/accounts/me')).status).toBe(401);
  });
});
