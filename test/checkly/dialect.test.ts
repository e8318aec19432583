import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createAccount, startVigil, type TestVigil } from '#test-vigil';

/** The /checkly surface over plain HTTP: its account header, its refusals, and what it leaves out. */
let vigil: TestVigil;
let owner: Awaited<ReturnType<typeof createAccount>>;
let second: Awaited<ReturnType<typeof createAccount>>;
let stranger: Awaited<ReturnType<typeof createAccount>>;

beforeAll(async () => {
  vigil = await startVigil();
  owner = await createAccount(vigil, 'team');
  second = await createAccount(vigil, 'hobby', owner.ownerEmail);
  stranger = await createAccount(vigil, 'team');
});
afterAll(async () => vigil?.stop());

function checkly(key: string, account?: string) {
  const api = client(`${vigil.url}/checkly`, key);
  const headers: Record<string, string> = account ? { 'x-checkly-account': account } : {};
  return {
    get: (path: string) => api.get(path, headers),
    post: (path: string, body: unknown) => api.post(path, body, headers),
  };
}

describe('Checkly dialect: accounts and authentication', () => {
  it('X-Checkly-Account selects the account, with the same keys and membership rules as /v1', async () => {
    const first = await checkly(owner.ownerKey, owner.accountId).get('/v1/variables');
    expect(first.status).toBe(200);
    // Two accounts: without the header the key must name one, as on /v1.
    expect((await checkly(owner.ownerKey).get('/v1/variables')).status).toBe(400);
    // X-Service-Account is /v1's header; the dialect reads only its own.
    const v1Header = await client(`${vigil.url}/checkly`, owner.ownerKey, owner.accountId).get('/v1/variables');
    expect(v1Header.status).toBe(400);
    expect((await checkly(owner.ownerKey, stranger.accountId).get('/v1/variables')).status).toBe(403);
    expect((await checkly('vgl_unknown', owner.accountId).get('/v1/variables')).status).toBe(401);
  });

  it('GET /next/accounts/{id} and /next/accounts answer the accounts the key reaches; another tenant is a 404', async () => {
    const one = await checkly(owner.ownerKey, owner.accountId).get(`/next/accounts/${second.accountId}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: second.accountId, plan: 'hobby', planDisplayName: 'Hobby' });
    expect(typeof one.body.name).toBe('string');
    const all = await checkly(owner.ownerKey).get('/next/accounts');
    expect(all.body.map((a: { id: string }) => a.id).sort()).toEqual([owner.accountId, second.accountId].sort());
    const foreign = await checkly(owner.ownerKey, owner.accountId).get(`/next/accounts/${stranger.accountId}`);
    expect(foreign.status).toBe(404);
  });

  it('GET /next/users/me names the user behind the key', async () => {
    const me = await checkly(owner.ownerKey, owner.accountId).get('/next/users/me');
    expect(me.body).toEqual({ id: owner.ownerId, name: owner.ownerEmail, email: owner.ownerEmail });
  });

  it('a READ_ONLY member cannot change roles (same role rules as /v1)', async () => {
    const added = await owner.owner.post('/v1/users', { email: `ro-${Date.now()}@example.com`, role: 'READ_ONLY' });
    const key = added.body.apiKey.key as string;
    const api = client(`${vigil.url}/checkly`, key);
    const patch = await api.patch(
      `/v1/accounts/me/members/${owner.ownerId}`,
      { role: 'READ_ONLY' },
      {
        'x-checkly-account': owner.accountId,
      },
    );
    expect(patch.status).toBe(403);
    const list = await api.get('/v1/accounts/me/members', { 'x-checkly-account': owner.accountId });
    expect(list.status).toBe(200);
  });
});

describe('Checkly dialect: families Vigil does not have', () => {
  it.each([
    ['GET', '/v1/dashboards', 'dashboards'],
    ['POST', '/v1/snippets', 'snippets'],
    ['DELETE', '/v1/client-certificates/12', 'client certificates'],
    ['GET', '/v1/static-ips', 'static IPs'],
    ['POST', '/v1/checks/icmp', 'ICMP checks'],
    ['POST', '/v1/checks/grpc', 'gRPC checks'],
    ['POST', '/v1/checks/traceroute', 'traceroute checks'],
    ['GET', '/next/projects', 'project listings and imports (checkly import); checkly deploy and destroy work'],
  ])('%s %s is a JSON 404 saying Vigil does not support %s', async (method, path, family) => {
    const response = await fetch(`${vigil.url}/checkly${path}`, {
      method,
      headers: { accept: 'text/html', authorization: `Bearer ${owner.ownerKey}`, 'x-checkly-account': owner.accountId },
    });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('application/json');
    expect(((await response.json()) as { message: string }).message).toBe(`Vigil does not support ${family}`);
  });

  it.each([
    ['GET', '/v1/static-ipv6s-by-region', 'static IPs'],
    ['POST', '/v1/checks/ssl', 'SSL monitors; an API check with sslCheckDomain watches a certificate'],
    ['POST', '/v1/status-pages/services', 'status page services'],
    ['POST', '/v1/status-pages', 'writing status pages'],
    ['PUT', '/v1/status-pages/0b9c', 'writing status pages'],
    ['DELETE', '/v1/status-pages/0b9c', 'writing status pages'],
  ])('%s %s (as the Go SDK asks) is the unsupported 404 whatever its body', async (method, path, family) => {
    // Route first, then parse: a body no parser takes (octet-stream) or broken JSON never makes it a 400 or 415.
    for (const [type, body] of [
      ['application/octet-stream', 'bundle'],
      ['application/json', '{not json'],
    ]) {
      const response = await fetch(`${vigil.url}/checkly${path}`, {
        method,
        headers: {
          'content-type': type!,
          authorization: `Bearer ${owner.ownerKey}`,
          'x-checkly-account': owner.accountId,
        },
        body: method === 'GET' ? undefined : body,
      });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { message: string }).message).toContain(`Vigil does not support ${family}`);
    }
  });

  it('any other path under /checkly is a JSON 404, even for a browser', async () => {
    const response = await fetch(`${vigil.url}/checkly/v9/nothing`, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { message: string }).message).toContain(
      "Vigil's Checkly API does not serve GET /checkly/v9/nothing",
    );
  });

  it("/openapi.json documents Vigil's own API only", async () => {
    const document = (await vigil.admin.get<{ paths: Record<string, unknown> }>('/openapi.json')).body;
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/checkly'))).toEqual([]);
    expect(document.paths['/v1/variables']).toBeDefined();
  });
});
