import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

// Issue 21 items 4 and 8 at the API: DNS definitions that would reach past the address policy are
// a 400 naming the field, and the redirect opt-in is a plain field of an API check's request.
describe('check definitions at the API (embedded)', () => {
  let vigil: TestVigil;
  beforeAll(async () => {
    vigil = await startVigil();
  });
  afterAll(async () => {
    await vigil?.stop();
  });

  const dns = (request: Record<string, unknown>) => ({ name: 'resolver', checkType: 'DNS', request });

  it('answers 400 naming request.port for a port without a nameServer, on save and on test', async () => {
    const a = await createAccount(vigil);
    for (const path of ['/v1/checks', '/v1/checks/test']) {
      const response = await a.owner.post(path, dns({ query: 'example.com', port: 6379 }));
      expect(response.status, path).toBe(400);
      expect(JSON.stringify(response.body)).toMatch(/request\.port/);
      expect(JSON.stringify(response.body)).toMatch(/nameServer/);
    }
    const withServer = await a.owner.post(
      '/v1/checks',
      dns({ query: 'example.com', port: 5353, nameServer: '9.9.9.9' }),
    );
    expect(withServer.status, JSON.stringify(withServer.body)).toBe(201);
  });

  it('answers 400 naming request.query for a query that is not a DNS name', async () => {
    const a = await createAccount(vigil);
    for (const query of ['example.com\r\nINFO', 'a b.example', `${'x'.repeat(64)}.example`]) {
      const response = await a.owner.post('/v1/checks', dns({ query }));
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect(JSON.stringify(response.body)).toMatch(/request\.query/);
    }
    expect((await a.owner.post('/v1/checks', dns({ query: '_dmarc.{{DOMAIN}}', recordType: 'TXT' }))).status).toBe(201);
  });

  it('stores followRedirectsWithCredentials, false unless set', async () => {
    const a = await createAccount(vigil);
    const plain = await a.owner.post('/v1/checks', {
      name: 'api',
      checkType: 'API',
      request: { url: 'https://api.example.com/' },
    });
    expect(plain.status).toBe(201);
    expect(plain.body.request.followRedirectsWithCredentials).toBe(false);
    const trusted = await a.owner.post('/v1/checks', {
      name: 'api',
      checkType: 'API',
      request: { url: 'https://api.example.com/', followRedirectsWithCredentials: true },
    });
    expect(trusted.status).toBe(201);
    const read = await a.owner.get(`/v1/checks/${trusted.body.id}`);
    expect(read.body.request.followRedirectsWithCredentials).toBe(true);
  });
});
