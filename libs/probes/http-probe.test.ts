import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequestSchema, urlRequestSchema, type ApiRequest } from '#domain';
import { runProbe } from './run.ts';
import { httpServer, httpsServer, probeContext, selfSignedCertificate, type TestServer } from './test-helpers.ts';

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let server: TestServer;
let tlsServer: TestServer;
const seen: Seen[] = [];

beforeAll(async () => {
  server = await httpServer((req, res, body) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    switch (path) {
      case '/json':
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ status: 'ok', items: [1, 2, 3] }));
      case '/echo':
        res.setHeader('content-type', 'application/json');
        return res.end(JSON.stringify({ method: req.method, headers: req.headers, body, url: req.url }));
      case '/fail':
        res.statusCode = 500;
        return res.end('internal error');
      case '/redirect':
        res.statusCode = 302;
        res.setHeader('location', '/json');
        return res.end();
      case '/to': {
        const query = new URL(req.url ?? '/', 'http://x').searchParams;
        res.statusCode = Number(query.get('status') ?? 302);
        res.setHeader('location', query.get('location') ?? '/');
        return res.end();
      }
      case '/gzip':
        res.setHeader('content-encoding', 'gzip');
        return res.end(gzipSync('compressed hello'));
      case '/slow':
        setTimeout(() => res.end('late'), 30);
        return undefined;
      case '/hang':
        return undefined; // never answers
      default:
        res.statusCode = 404;
        return res.end('not found');
    }
  });
  tlsServer = await httpsServer(await selfSignedCertificate(30), (_req, res) => res.end('secure hello'));
});
afterAll(async () => {
  await server.close();
  await tlsServer.close();
});

const api = (request: Partial<ApiRequest> & { url: string }) => ({
  checkType: 'API' as const,
  request: apiRequestSchema.parse(request),
});

describe('API and URL probes over real HTTP', () => {
  it('passes with assertions on status, JSON body, text body, headers and response time, with timings', async () => {
    const { result, assertions } = await runProbe(
      api({
        url: `${server.url}/json`,
        assertions: [
          { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', property: '' },
          { source: 'JSON_BODY', property: '$.status', comparison: 'EQUALS', target: 'ok' },
          { source: 'JSON_BODY', property: '$.items', comparison: 'HAS_VALUE', target: '2' },
          { source: 'TEXT_BODY', property: '', comparison: 'CONTAINS', target: '"items"' },
          { source: 'HEADERS', property: 'Content-Type', comparison: 'CONTAINS', target: 'json' },
          { source: 'RESPONSE_TIME', property: '', comparison: 'LESS_THAN', target: '10000' },
        ],
      }),
      probeContext(),
    );
    expect(assertions.map((a) => a.passed)).toEqual([true, true, true, true, true, true]);
    expect(result).toMatchObject({
      hasFailures: false,
      isDegraded: false,
      statusCode: 200,
      checkType: 'API',
      attempts: 1,
    });
    expect(result.errorMessage).toBeUndefined();
    expect(result.timings).toMatchObject({
      dns: expect.any(Number),
      tcp: expect.any(Number),
      firstByte: expect.any(Number),
      download: expect.any(Number),
      total: result.responseTime,
    });
    expect(result.id).toBe(probeContext().resultId);
    expect(result.startedAt).toBe('2026-01-02T03:04:05.000Z');
  });

  it('names every failed assertion with its actual value in errorMessage', async () => {
    const { result, assertions } = await runProbe(
      api({
        url: `${server.url}/fail`,
        assertions: [
          { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', property: '' },
          { source: 'TEXT_BODY', property: '', comparison: 'CONTAINS', target: 'healthy' },
          { source: 'TEXT_BODY', property: '', comparison: 'NOT_EMPTY', target: '' },
        ],
      }),
      probeContext(),
    );
    expect(assertions.map((a) => a.passed)).toEqual([false, false, true]);
    expect(result.hasFailures).toBe(true);
    expect(result.errorMessage).toContain('STATUS_CODE EQUALS "200" (actual 500)');
    expect(result.errorMessage).toContain('TEXT_BODY CONTAINS "healthy" (actual internal error)');
    expect(result.errorMessage).not.toContain('NOT_EMPTY');
  });

  it('keeps the response body of a failed API run as an artifact, and none of a passing or URL run', async () => {
    const failed = await runProbe(api({ url: `${server.url}/fail` }), probeContext());
    expect(failed.result.hasFailures).toBe(true);
    expect(failed.artifacts).toHaveLength(1);
    expect(failed.artifacts![0]).toMatchObject({
      kind: 'response-body',
      contentType: 'text/plain; charset=utf-8',
      name: `GET ${server.url}/fail`,
    });
    expect(failed.artifacts![0]!.body.toString()).toBe('internal error');
    expect((await runProbe(api({ url: `${server.url}/json` }), probeContext())).artifacts).toBeUndefined();
    const url = await runProbe(
      { checkType: 'URL', request: urlRequestSchema.parse({ url: `${server.url}/fail` }) },
      probeContext(),
    );
    expect(url.result.hasFailures).toBe(true);
    expect(url.artifacts).toBeUndefined();
  });

  it('sends method, headers, query, basic auth and each body type with its content type', async () => {
    const cases = [
      ['JSON', '{"a":{{N}}}', 'application/json', '{"a":1}'],
      ['FORM', 'a={{N}}&b=2', 'application/x-www-form-urlencoded', 'a=1&b=2'],
      ['RAW', 'raw {{N}}', 'text/plain; charset=utf-8', 'raw 1'],
      ['GRAPHQL', '{ viewer { id } }', 'application/json', JSON.stringify({ query: '{ viewer { id } }' })],
    ] as const;
    for (const [bodyType, body, contentType, sent] of cases) {
      seen.length = 0;
      const { result } = await runProbe(
        api({
          url: `${server.url}/echo`,
          method: 'POST',
          bodyType,
          body,
          headers: [{ key: 'X-Trace', value: 'trace-{{N}}' }],
          queryParameters: [{ key: 'q', value: 'v {{N}}' }],
          basicAuth: { username: 'user', password: 'pw{{N}}' },
        }),
        probeContext({ variables: { N: '1' } }),
      );
      expect(result.hasFailures).toBe(false);
      const request = seen[0]!;
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/echo?q=v+1');
      expect(request.headers['content-type']).toBe(contentType);
      expect(request.headers['x-trace']).toBe('trace-1');
      expect(request.headers.authorization).toBe(`Basic ${Buffer.from('user:pw1').toString('base64')}`);
      expect(request.body).toBe(sent);
    }
  });

  it('follows redirects, or reports the redirect when followRedirects is false', async () => {
    const followed = await runProbe(api({ url: `${server.url}/redirect` }), probeContext());
    expect(followed.result.statusCode).toBe(200);
    const kept = await runProbe(
      api({
        url: `${server.url}/redirect`,
        followRedirects: false,
        assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '302', property: '' }],
      }),
      probeContext(),
    );
    expect(kept.result).toMatchObject({ statusCode: 302, hasFailures: false });
  });

  it('decompresses a gzip body for assertions', async () => {
    const { result } = await runProbe(
      api({
        url: `${server.url}/gzip`,
        assertions: [{ source: 'TEXT_BODY', comparison: 'EQUALS', target: 'compressed hello', property: '' }],
      }),
      probeContext(),
    );
    expect(result.hasFailures).toBe(false);
  });

  it('URL check: any 2xx passes without assertions, anything else fails', async () => {
    const ok = await runProbe(
      { checkType: 'URL', request: urlRequestSchema.parse({ url: `${server.url}/json` }) },
      probeContext(),
    );
    expect(ok.result).toMatchObject({ checkType: 'URL', hasFailures: false, statusCode: 200 });
    const missing = await runProbe(
      { checkType: 'URL', request: urlRequestSchema.parse({ url: `${server.url}/nowhere` }) },
      probeContext(),
    );
    expect(missing.result).toMatchObject({
      hasFailures: true,
      statusCode: 404,
      errorMessage: 'status code 404 is not 2xx',
    });
  });

  it('HTTPS: refuses a self-signed certificate, and with skipSSL reports its expiry', async () => {
    const strict = await runProbe(api({ url: `${tlsServer.url}/` }), probeContext());
    expect(strict.result.hasFailures).toBe(true);
    expect(strict.result.errorMessage).toMatch(/self[- ]signed/i);
    const skipped = await runProbe(
      api({
        url: `${tlsServer.url}/`,
        skipSSL: true,
        assertions: [{ source: 'TEXT_BODY', comparison: 'EQUALS', target: 'secure hello', property: '' }],
      }),
      probeContext(),
    );
    expect(skipped.result).toMatchObject({ hasFailures: false, ssl: { daysRemaining: 29, domain: '127.0.0.1' } });
    expect(skipped.result.timings?.connection).toBeGreaterThanOrEqual(0);
  });

  it('marks a run degraded over degradedResponseTime and failed over maxResponseTime', async () => {
    const degraded = await runProbe(api({ url: `${server.url}/slow` }), probeContext({ degradedResponseTime: 0 }));
    expect(degraded.result).toMatchObject({ hasFailures: false, isDegraded: true });
    const failed = await runProbe(
      api({ url: `${server.url}/slow` }),
      probeContext({ degradedResponseTime: 0, maxResponseTime: 0 }),
    );
    expect(failed.result).toMatchObject({ hasFailures: true, isDegraded: false });
    expect(failed.result.errorMessage).toMatch(/is over maxResponseTime 0 ms/);
  });

  it('ends a run that never gets an answer at the timeout', async () => {
    const { result } = await runProbe(api({ url: `${server.url}/hang` }), probeContext({ timeoutMs: 300 }));
    expect(result.hasFailures).toBe(true);
    expect(result.errorMessage).toMatch(/timed out after 300 ms/);
  });

  it('refuses private targets unless allowPrivate, by literal address and by name', async () => {
    for (const url of [`${server.url}/json`, `http://localhost:${server.port}/json`]) {
      const { result } = await runProbe(api({ url }), probeContext({ allowPrivate: false }));
      expect(result.hasFailures).toBe(true);
      expect(result.errorMessage).toContain('loopback');
      expect(result.errorMessage).toContain('VIGIL_ALLOW_PRIVATE_TARGETS');
    }
    expect(seen.some((request) => request.url === '/json' && request.headers.host?.includes('localhost'))).toBe(false);
  });

  it('never lets a secret reach the result, assertion outcomes or errors', async () => {
    const secret = 'hunter2-S3CRET';
    const ctx = probeContext({ variables: { TOKEN: secret }, secretValues: [secret] });
    const echoed = await runProbe(
      api({
        url: `${server.url}/echo?t={{TOKEN}}`,
        headers: [{ key: 'Authorization', value: 'Bearer {{TOKEN}}' }],
        assertions: [{ source: 'TEXT_BODY', comparison: 'CONTAINS', target: 'nope', property: '' }],
      }),
      ctx,
    );
    expect(seen.at(-1)?.headers.authorization).toBe(`Bearer ${secret}`);
    expect(echoed.result.hasFailures).toBe(true);
    const refused = await runProbe(api({ url: `http://127.0.0.1:1/x?t={{TOKEN}}` }), ctx);
    expect(refused.result.hasFailures).toBe(true);
    for (const outcome of [echoed, refused]) {
      const text = JSON.stringify(outcome);
      expect(text).not.toContain(secret);
      expect(text).not.toContain(encodeURIComponent(secret));
    }
    expect(echoed.result.errorMessage).toContain('********');
    // The echoed body (the secret in its headers and URL) is kept scrubbed, its name too.
    const kept = echoed.artifacts?.[0];
    expect(kept?.body.toString()).toContain('********');
    expect(kept?.body.toString()).not.toContain(secret);
    expect(kept?.name).not.toContain(secret);
  });

  it('refuses cloud metadata addresses even with allowPrivate, directly and through a redirect', async () => {
    const direct = await runProbe(
      api({ url: 'http://169.254.169.254/latest/meta-data/' }),
      probeContext({ allowPrivate: true, timeoutMs: 3000 }),
    );
    expect(direct.result.errorMessage).toContain('cloud metadata');
    const viaRedirect = await runProbe(
      api({ url: `${server.url}/to?location=${encodeURIComponent('http://[fd00:ec2::254]/')}` }),
      probeContext({ allowPrivate: true, timeoutMs: 3000 }),
    );
    expect(viaRedirect.result.errorMessage).toContain('cloud metadata');
  });
});

// Issue 21 item 8: what a check sends to its own origin must not follow a redirect to another one.
describe('redirects to another origin', () => {
  let other: TestServer;
  const seenThere: Seen[] = [];
  beforeAll(async () => {
    other = await httpServer((req, res, body) => {
      seenThere.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.end('landed');
    });
  });
  afterAll(() => other.close());

  const withCredentials = (status: number, target: string, extra: Partial<ApiRequest> = {}) =>
    api({
      url: `${server.url}/to?status=${status}&location=${encodeURIComponent(target)}`,
      method: 'POST',
      bodyType: 'JSON',
      body: '{"token":"{{TOKEN}}"}',
      headers: [
        { key: 'X-Api-Key', value: '{{TOKEN}}' },
        { key: 'Cookie', value: 'session={{TOKEN}}' },
        { key: 'Authorization', value: 'Bearer {{TOKEN}}' },
      ],
      basicAuth: { username: 'u', password: '{{TOKEN}}' },
      ...extra,
    });
  const ctx = probeContext({ variables: { TOKEN: 'tok-123' }, secretValues: ['tok-123'] });
  const userHeaders = ['x-api-key', 'cookie', 'authorization', 'content-type'];

  for (const status of [301, 302, 303, 307, 308]) {
    it(`${status}: drops every header the user set and the body`, async () => {
      seenThere.length = 0;
      const { result } = await runProbe(withCredentials(status, `${other.url}/landing`), ctx);
      expect(result).toMatchObject({ hasFailures: false, statusCode: 200 });
      const landed = seenThere[0]!;
      for (const name of userHeaders) expect(landed.headers[name], name).toBeUndefined();
      expect(landed.body).toBe('');
      expect(JSON.stringify(landed)).not.toContain('tok-123');
      // Fetch rules: 303 always, and 301/302 of a POST, become a GET; 307/308 keep the method.
      expect(landed.method).toBe(status === 307 || status === 308 ? 'POST' : 'GET');
    });
  }

  it('a different port on the same host is another origin', async () => {
    seenThere.length = 0;
    const sameHostOtherPort = `http://127.0.0.1:${other.port}/landing`;
    expect(new URL(sameHostOtherPort).hostname).toBe(new URL(server.url).hostname);
    await runProbe(withCredentials(307, sameHostOtherPort), ctx);
    expect(seenThere[0]?.headers['x-api-key']).toBeUndefined();
  });

  it('keeps headers and body on a same-origin redirect', async () => {
    seen.length = 0;
    await runProbe(withCredentials(307, '/echo'), ctx);
    const followed = seen.find((request) => request.url === '/echo')!;
    expect(followed.headers['x-api-key']).toBe('tok-123');
    // basicAuth wins over an Authorization header, as it did before.
    expect(followed.headers.authorization).toBe(`Basic ${Buffer.from('u:tok-123').toString('base64')}`);
    expect(followed.headers.cookie).toBe('session=tok-123');
    expect(followed.body).toBe('{"token":"tok-123"}');
  });

  it('keeps them across origins only when the check opts in', async () => {
    seenThere.length = 0;
    await runProbe(withCredentials(307, `${other.url}/landing`, { followRedirectsWithCredentials: true }), ctx);
    const landed = seenThere[0]!;
    expect(landed.headers['x-api-key']).toBe('tok-123');
    expect(landed.headers.cookie).toBe('session=tok-123');
    expect(landed.body).toBe('{"token":"tok-123"}');
  });
});
