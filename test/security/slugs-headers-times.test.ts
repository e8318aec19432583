import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type ApiClient, type TestVigil } from '#test-vigil';

// Issue 21: item 7 (a failed create or rename burns a status-page slug for everyone) and the
// hardening found on the way (nosniff everywhere, CSP on the console and /docs, strict time
// parameters).

let vigil: TestVigil;
let a: ApiClient;
let b: ApiClient;
let checkId: string;

beforeAll(async () => {
  vigil = await startVigil();
  a = (await createAccount(vigil)).owner;
  b = (await createAccount(vigil)).owner;
  const check = await a.post('/v1/checks', { name: 'fed', checkType: 'API' });
  expect(check.status, JSON.stringify(check.body)).toBe(201);
  checkId = check.body.id;
});
afterAll(async () => {
  await vigil?.stop();
});

const slug = () => `s-${randomUUID().slice(0, 8)}`;

describe('status-page slugs (item 7)', () => {
  it('a create with an unknown check id answers 404 and leaves the slug free, for every account', async () => {
    const wanted = slug();
    const failed = await a.post('/v1/status-pages', { slug: wanted, title: 'x', checkIds: [randomUUID()] });
    expect(failed.status).toBe(404);
    expect(failed.body.message).toMatch(/^checkIds\[0\]/);
    const foreign = await b.post('/v1/status-pages', { slug: wanted, title: 'x', checkIds: [checkId] });
    expect(foreign.status).toBe(404);
    expect((await b.post('/v1/status-pages', { slug: wanted, title: 'B', checkIds: [] })).status).toBe(201);
  });

  it('a failed rename keeps the old slug and frees the attempted one', async () => {
    const [old, attempted] = [slug(), slug()];
    const page = await a.post('/v1/status-pages', { slug: old, title: 'A', checkIds: [checkId] });
    expect(page.status).toBe(201);
    const renamed = await a.put(`/v1/status-pages/${page.body.id}`, {
      slug: attempted,
      title: 'A',
      checkIds: [randomUUID()],
    });
    expect(renamed.status).toBe(404);
    expect((await a.get(`/v1/status-pages/${page.body.id}`)).body.slug).toBe(old);
    expect((await vigil.as(null).get(`/v1/public/status-pages/${old}`)).status).toBe(200);
    expect((await b.post('/v1/status-pages', { slug: old, title: 'B', checkIds: [] })).status).toBe(409);
    expect((await b.post('/v1/status-pages', { slug: attempted, title: 'B', checkIds: [] })).status).toBe(201);
  });
});

describe('security headers', () => {
  const csp = (response: Response) => response.headers.get('content-security-policy') ?? '';

  it('sends X-Content-Type-Options: nosniff on JSON routes, errors, the console, docs and status pages', async () => {
    const wanted = slug();
    expect((await a.post('/v1/status-pages', { slug: wanted, title: 'S', checkIds: [] })).status).toBe(201);
    const paths = [
      '/v1/checks',
      '/v1/nothing-here',
      '/openapi.json',
      '/docs',
      '/docs/static/index.html',
      '/',
      '/index.html',
      '/checks/deep/link',
      `/status/${wanted}`,
      `/v1/public/status-pages/${wanted}`,
      '/health',
    ];
    for (const path of paths) {
      const response = await fetch(`${vigil.url}${path}`);
      await response.arrayBuffer();
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
  });

  it('the console, by any of its paths, has a CSP with frame-ancestors none and same-origin scripts', async () => {
    for (const path of ['/', '/index.html', '/checks/deep/link']) {
      // As a browser navigates: the console's deep links answer only a request that accepts HTML.
      const response = await fetch(`${vigil.url}${path}`, { headers: { accept: 'text/html,*/*;q=0.8' } });
      const body = await response.text();
      expect(response.status, path).toBe(200);
      expect(body, path).toContain('<div id="app">');
      expect(csp(response), path).toMatch(/frame-ancestors 'none'/);
      expect(csp(response), path).toMatch(/default-src 'self'/);
      expect(csp(response), path).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    }
  });

  it('/docs has a CSP that lets swagger-ui load its own scripts and styles, and nothing from elsewhere', async () => {
    const page = await fetch(`${vigil.url}/docs`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('swagger-ui-bundle.js');
    const policy = csp(page);
    expect(policy).toMatch(/default-src 'self'/);
    expect(policy).toMatch(/script-src 'self'(;|$)/);
    expect(policy).toMatch(/style-src 'self' 'unsafe-inline'/);
    expect(policy).toMatch(/frame-ancestors 'none'/);
    const redirect = await fetch(`${vigil.url}/docs/static/index.html`, { redirect: 'manual' });
    await redirect.arrayBuffer();
    expect(csp(redirect)).toBe(policy);
  });
});

describe('strict time parameters', () => {
  it.each([
    ['to', '0.5'],
    ['to', '1704067200.5'],
    ['from', '1e9'],
    ['from', '2024-02-30'],
    ['to', '2024-13-01T00:00:00Z'],
    ['from', ' 1704067200'],
  ])('GET /v1/check-results/{id}?%s=%s is a 400 naming the parameter', async (name, value) => {
    const response = await a.get(`/v1/check-results/${checkId}?${name}=${encodeURIComponent(value)}`);
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.message).toMatch(new RegExp(`^${name}\\b`));
  });

  it.each([
    ['to', '0.5'],
    ['from', '2024-02-30'],
  ])('GET /v1/analytics/api-checks/{id}?%s=%s is a 400 naming the parameter', async (name, value) => {
    const other = name === 'to' ? '&from=0' : '';
    const response = await a.get(
      `/v1/analytics/api-checks/${checkId}?metrics=responseTime&${name}=${encodeURIComponent(value)}${other}`,
    );
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.message).toMatch(new RegExp(`^${name}\\b`));
  });

  it('integers and ISO 8601 still work', async () => {
    for (const query of ['from=1704067200&to=1704070800', 'from=2024-01-01&to=2024-01-02T00:00:00Z']) {
      const response = await a.get(`/v1/check-results/${checkId}?${query}`);
      expect(response.status, query).toBe(200);
      const analytics = await a.get(`/v1/analytics/api-checks/${checkId}?metrics=responseTime&${query}`);
      expect(analytics.status, query).toBe(200);
    }
  });
});
