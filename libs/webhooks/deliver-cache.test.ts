import http, { createServer, type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedTarget, deliverWebhook, prepareRequest, type DeliveryOptions, type WebhookRequest } from './deliver.ts';
import { eventJson, renderTemplates } from './render.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

// Differential: a request sent through the per-URL cache (second send of a URL) must reach the
// receiver exactly as one sent the reference way, http.request(url, options) with Node's own
// URL handling: same method, path, headers (auth included) and body bytes.
describe('deliverWebhook: cached request targets', () => {
  const seen: Seen[] = [];
  let base = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      res.end('ok');
    });
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const options: DeliveryOptions = {
    timeoutMs: 5_000,
    allowPrivate: true,
    userAgent: 'Vigil/test',
    deliveryId: 'd-1',
    secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=',
    now: new Date('2026-01-02T03:04:05Z'),
  };

  /** The uncached way: Node parses the URL itself. */
  function reference(request: WebhookRequest): Promise<void> {
    const prepared = prepareRequest(request, options);
    const headers = Object.fromEntries(
      Object.entries(prepared.headers).map(([k, v]) => [k, Buffer.from(v, 'utf8').toString('latin1')]),
    );
    return new Promise((resolve, reject) => {
      const req = http.request(new URL(request.url), { method: prepared.method, headers, agent: false }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      // The body as bytes: given a string, Node writes the head in the same write as UTF-8, so a
      // non-ASCII header value (already its UTF-8 bytes as Latin-1) would go out encoded twice.
      req.end(prepared.method === 'GET' || prepared.method === 'HEAD' ? undefined : Buffer.from(prepared.body));
    });
  }

  const cases = (): WebhookRequest[] => [
    { url: `http://${base}/hook?a=1&b=%20x#frag`, method: 'post', headers: { 'X-Team': 'Zürich' }, body: '{"a":1}' },
    { url: `http://user:p%40ss@${base}/auth`, method: 'PUT', headers: { 'x-a': 'b' }, body: 'plain' },
    { url: `http://${base}`, method: 'GET', headers: {}, body: 'dropped' },
    { url: `http://${base}/empty`, method: 'POST', headers: {}, body: '' },
    { url: `http://${base}/empty`, method: 'PATCH', headers: { 'X-Many': 'one, two' }, body: '' },
    { url: `http://${base}/gone`, method: 'DELETE', headers: {}, body: '' },
    { url: `http://${base}/head`, method: 'HEAD', headers: {}, body: 'dropped' },
    // The channel's own Authorization wins over the URL's user and password, as with Node's.
    { url: `http://u:p@${base}/auth`, method: 'POST', headers: { Authorization: 'Bearer t' }, body: '{}' },
  ];

  it('sends the same method, URL, headers and body bytes as the uncached reference, on a miss and a hit', async () => {
    for (const request of cases()) {
      seen.length = 0;
      await reference(request);
      const first = await deliverWebhook(request, options);
      const second = await deliverWebhook(request, options);
      expect([first.outcome, second.outcome]).toEqual(['delivered', 'delivered']);
      expect(seen).toHaveLength(3);
      const [ref, ...ours] = seen.map(({ headers, ...rest }) => {
        // Connection handling differs (the reference uses no pool); everything else must match.
        const { connection: _connection, ...sent } = headers;
        return { ...rest, headers: sent };
      });
      for (const got of ours) expect(got).toEqual(ref);
    }
  });

  it('a DELETE with a body frames it with its Content-Length (a header object sent it unframed)', async () => {
    seen.length = 0;
    const result = await deliverWebhook(
      { url: `http://${base}/x`, method: 'DELETE', headers: {}, body: 'abc' },
      options,
    );
    expect(result.outcome).toBe('delivered');
    expect(seen[0]).toMatchObject({ method: 'DELETE', headers: { 'content-length': '3' } });
    expect(seen[0]!.body.toString()).toBe('abc');
  });

  it('sets the Host header Node sets for the same URL (IPv6 literals, default and other ports, names)', () => {
    const urls = [
      'http://[::1]:8080/x',
      'http://[2001:db8::1]/x',
      'https://example.com:443/x',
      'http://example.com:443/x',
      'https://example.com:8443/x',
      'http://Example.COM/x',
      'http://user:pass@example.com:80/x',
    ];
    for (const url of urls) {
      const req = (url.startsWith('https:') ? https : http).request(url, {
        agent: false,
        lookup: (_h, _o, callback) => callback(new Error('not sent'), '', 4),
      });
      req.on('error', () => undefined);
      const expected = { host: req.getHeader('host'), authorization: req.getHeader('authorization') ?? null };
      req.destroy();
      const target = cachedTarget(url, true);
      expect(target.refusal).toBeNull();
      if (target.refusal === null) expect({ host: target.host, authorization: target.authorization }).toEqual(expected);
    }
  });

  it('a cached target still goes through the connect-time address policy on every new connection', async () => {
    const url = `http://receiver.test:${base.split(':')[1]}/x`;
    let lookups = 0;
    const resolve: DeliveryOptions['resolve'] = (_host, _opts, callback) => {
      lookups++;
      callback(null, [{ address: '127.0.0.1', family: 4 }]);
    };
    const strict = { ...options, allowPrivate: false, resolve };
    const refused = [await deliverWebhook({ url, method: 'POST', headers: {}, body: '' }, strict)];
    refused.push(await deliverWebhook({ url, method: 'POST', headers: {}, body: '' }, strict));
    expect(refused.map((r) => r.outcome)).toEqual(['refused', 'refused']);
    expect(lookups).toBe(2);
    // The literal-address verdict is cached per policy: allowed only where private addresses are.
    expect(cachedTarget(`http://${base}/`, false).refusal).toMatch(/VIGIL_ALLOW_PRIVATE_TARGETS/);
    expect(cachedTarget(`http://${base}/`, true).refusal).toBeNull();
    const local = await deliverWebhook(
      { url: `http://localhost:${base.split(':')[1]}/`, method: 'POST', headers: {}, body: '' },
      {
        ...options,
        allowPrivate: false,
      },
    );
    expect(local.outcome).toBe('refused');
  });
});

describe('renderTemplates: the default body built once per event', () => {
  it('is the event as JSON, per event object, whatever was rendered before', () => {
    const variables = (title: string) => ({
      event: { ALERT_TITLE: title, CHECK_NAME: 'c', RESPONSE_TIME: 12 } as never,
      account: {},
      group: {},
    });
    const a = variables('one');
    const b = variables('two');
    const config = { url: 'https://example.com/h' };
    for (const v of [a, b, a, variables('one'), b]) {
      const body = renderTemplates(config, v).body;
      expect(body).toBe(JSON.stringify(v.event));
      expect(eventJson(v.event)).toBe(JSON.stringify(v.event));
    }
  });
});
