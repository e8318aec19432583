import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueSuffix } from '#test-support';
import { createAccount, startVigil, type ApiClient, type ApiResponse, type TestVigil } from '#test-vigil';

// Existence is private: another tenant's id (or another user's key) answers exactly like an
// unknown id, on every route with an id that this suite's owner maintains.

let vigil: TestVigil;
let mine: ApiClient;
let ids: Record<string, string>;

const routes: { name: string; send: (client: ApiClient, id: string) => Promise<ApiResponse> }[] = [
  { name: 'GET /v1/accounts/{id}', send: (c, id) => c.get(`/v1/accounts/${id}`) },
  { name: 'DELETE /v1/api-keys/{id} (a user key)', send: (c, id) => c.delete(`/v1/api-keys/${id}`) },
  { name: 'DELETE /v1/api-keys/{id} (a service key)', send: (c, id) => c.delete(`/v1/api-keys/${id}`) },
  { name: 'PATCH /v1/users/{id}', send: (c, id) => c.patch(`/v1/users/${id}`, { role: 'READ_ONLY' }) },
  { name: 'DELETE /v1/users/{id}', send: (c, id) => c.delete(`/v1/users/${id}`) },
  { name: 'GET /v1/check-groups/{id}', send: (c, id) => c.get(`/v1/check-groups/${id}`) },
  { name: 'PUT /v1/check-groups/{id}', send: (c, id) => c.put(`/v1/check-groups/${id}`, { name: 'g' }) },
  { name: 'DELETE /v1/check-groups/{id}', send: (c, id) => c.delete(`/v1/check-groups/${id}`) },
  { name: 'GET /v1/alert-channels/{id}', send: (c, id) => c.get(`/v1/alert-channels/${id}`) },
  {
    name: 'PUT /v1/alert-channels/{id}',
    send: (c, id) => c.put(`/v1/alert-channels/${id}`, { config: { name: 'x', url: 'https://example.com/h' } }),
  },
  { name: 'DELETE /v1/alert-channels/{id}', send: (c, id) => c.delete(`/v1/alert-channels/${id}`) },
  { name: 'POST /v1/alert-channels/{id}/test', send: (c, id) => c.post(`/v1/alert-channels/${id}/test`) },
  {
    name: 'GET /v1/alert-channels/{id}/deliveries',
    send: (c, id) => c.get(`/v1/alert-channels/${id}/deliveries`),
  },
];

describe('existence is private: a foreign id answers like an unknown one', () => {
  beforeAll(async () => {
    vigil = await startVigil({ env: { VIGIL_RATE_LIMIT_PER_MINUTE: '1000000' } });
    const a = await createAccount(vigil, 'enterprise');
    const b = await createAccount(vigil, 'enterprise');
    mine = a.owner;
    // In my own account, another member whose user key I must not see either.
    const colleague = await a.owner.post('/v1/users', { email: `c-${uniqueSuffix()}@example.com`, role: 'ADMIN' });
    const colleagueKeys = await vigil.as(colleague.body.apiKey.key, a.accountId).get('/v1/api-keys');
    const theirs = b.owner;
    const userKey = await theirs.post('/v1/api-keys', { name: 'laptop', type: 'user' });
    const serviceKey = await theirs.post('/v1/api-keys', { name: 'ci', type: 'service', role: 'READ_ONLY' });
    const group = await theirs.post('/v1/check-groups', { name: 'g' });
    const channel = await theirs.post('/v1/alert-channels', { config: { name: 'c', url: 'https://example.com/h' } });
    ids = {
      'GET /v1/accounts/{id}': b.accountId,
      'DELETE /v1/api-keys/{id} (a user key)': userKey.body.id,
      'DELETE /v1/api-keys/{id} (a service key)': serviceKey.body.id,
      'PATCH /v1/users/{id}': b.ownerId,
      'DELETE /v1/users/{id}': b.ownerId,
      'GET /v1/check-groups/{id}': group.body.id,
      'PUT /v1/check-groups/{id}': group.body.id,
      'DELETE /v1/check-groups/{id}': group.body.id,
      'GET /v1/alert-channels/{id}': channel.body.id,
      'PUT /v1/alert-channels/{id}': channel.body.id,
      'DELETE /v1/alert-channels/{id}': channel.body.id,
      'POST /v1/alert-channels/{id}/test': channel.body.id,
      'GET /v1/alert-channels/{id}/deliveries': channel.body.id,
      "colleague's user key": colleagueKeys.body[0].id,
    };
    for (const [name, id] of Object.entries(ids))
      if (typeof id !== 'string') throw new Error(`setup: no id for ${name}`);
  }, 60_000);
  afterAll(async () => {
    await vigil?.stop();
  });

  it.each(routes.map((route) => [route.name, route] as const))('%s', async (name, route) => {
    const foreign = ids[name]!;
    const unknown = randomUUID();
    const answerForeign = await route.send(mine, foreign);
    const answerUnknown = await route.send(mine, unknown);
    expect(answerForeign.status).toBe(404);
    expect(answerUnknown.status).toBe(404);
    expect(JSON.stringify(answerForeign.body).replaceAll(foreign, 'ID')).toBe(
      JSON.stringify(answerUnknown.body).replaceAll(unknown, 'ID'),
    );
  });

  it("another member's user key in my own account answers 404 too, even to an OWNER", async () => {
    const id = ids["colleague's user key"]!;
    const answer = await mine.delete(`/v1/api-keys/${id}`);
    const unknown = randomUUID();
    const answerUnknown = await mine.delete(`/v1/api-keys/${unknown}`);
    expect(answer.status).toBe(404);
    expect(JSON.stringify(answer.body).replaceAll(id, 'ID')).toBe(
      JSON.stringify(answerUnknown.body).replaceAll(unknown, 'ID'),
    );
  });
});
