import { createHmac } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { deliverWebhook, prepareRequest, type DeliveryOptions, type Resolver } from './deliver.ts';
import { renderTemplates } from './render.ts';
import { alertEventVariablesSchema } from './variables.ts';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

const servers: http.Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A real HTTP receiver on loopback that records what it gets. */
async function receiver(handler: Handler = (_req, res) => res.end('ok')) {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body,
      });
      handler(req, res, body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, port, url: `http://127.0.0.1:${port}`, received };
}

const base: DeliveryOptions = { timeoutMs: 5000, allowPrivate: true, userAgent: 'Vigil/0.1.0', deliveryId: 'del_0001' };
const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('deliverWebhook to a real receiver', () => {
  it('sends the method, query, headers and exact body bytes, signed', async () => {
    const target = await receiver((_req, res) => res.writeHead(202).end('accepted'));
    const now = new Date();
    const body = '{"check":"Çheck \\"x\\"","n":1}';
    const result = await deliverWebhook(
      { url: `${target.url}/hook?a=1&b=%20`, method: 'POST', headers: { 'X-Team': 'payments' }, body },
      { ...base, secret, now },
    );

    expect(result).toMatchObject({ outcome: 'delivered', statusCode: 202, responseBody: 'accepted' });
    expect(target.received).toHaveLength(1);
    const [got] = target.received;
    expect(got?.method).toBe('POST');
    expect(got?.url).toBe('/hook?a=1&b=%20');
    expect(got?.body.equals(Buffer.from(body))).toBe(true);
    const timestamp = String(Math.floor(now.getTime() / 1000));
    expect(got?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Vigil/0.1.0',
      'x-service-timestamp': timestamp,
      'webhook-id': 'del_0001',
      'webhook-timestamp': timestamp,
      'x-team': 'payments',
      'content-length': String(Buffer.byteLength(body)),
      'x-service-signature': createHmac('sha256', secret)
        .update(got?.body ?? '')
        .digest('hex'),
    });
    const verified = new Webhook(secret).verify(got?.body ?? '', got?.headers as Record<string, string>);
    expect(verified).toEqual(JSON.parse(body));
    expect(result.requestHeaders).toMatchObject({
      'X-Team': 'payments',
      'webhook-id': 'del_0001',
      'x-service-timestamp': timestamp,
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('delivers what renderTemplates produced, query parameters included', async () => {
    const target = await receiver();
    const event = alertEventVariablesSchema.parse({
      CHECK_NAME: 'A & B',
      CHECK_ID: 'c1',
      CHECK_TYPE: 'API',
      ALERT_TITLE: 't',
      ALERT_TYPE: 'ALERT_FAILURE',
    });
    const rendered = renderTemplates(
      {
        url: '{{{BASE_URL}}}/alerts/{{CHECK_ID}}',
        queryParameters: [{ key: 'name', value: '{{CHECK_NAME}}' }],
        template: '{ "name": "{{CHECK_NAME}}" }',
      },
      { event, account: { BASE_URL: target.url } },
    );
    const result = await deliverWebhook(rendered, { ...base, secret: 'plain-secret' });
    expect(result.outcome).toBe('delivered');
    const [got] = target.received;
    expect(got?.url).toBe('/alerts/c1?name=A%20%26%20B');
    expect(got?.body.toString()).toBe('{"name":"A & B"}');
    expect(got?.headers['x-service-signature']).toBe(
      createHmac('sha256', 'plain-secret').update('{"name":"A & B"}').digest('hex'),
    );
    expect(got?.headers['webhook-signature']).toBeUndefined();
  });

  it.each(['GET', 'HEAD'])('%s sends no body and no Content-Type', async (method) => {
    const target = await receiver();
    const result = await deliverWebhook(
      { url: target.url, method, headers: {}, body: '{"ignored":true}' },
      { ...base, secret: 's' },
    );
    expect(result.outcome).toBe('delivered');
    const [got] = target.received;
    expect(got?.method).toBe(method);
    expect(got?.body.length).toBe(0);
    expect(got?.headers['content-type']).toBeUndefined();
    expect(got?.headers['content-length'] ?? '0').toBe('0');
    expect(got?.headers['x-service-signature']).toBe(createHmac('sha256', 's').update('').digest('hex'));
  });

  it('sends a text body as text/plain, and keeps a Content-Type the channel set', async () => {
    const target = await receiver();
    await deliverWebhook({ url: target.url, method: 'PUT', headers: {}, body: 'check is down' }, base);
    await deliverWebhook(
      {
        url: target.url,
        method: 'PATCH',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'a=1',
      },
      base,
    );
    expect(target.received.map((r) => [r.method, r.headers['content-type'], r.body.toString()])).toEqual([
      ['PUT', 'text/plain; charset=utf-8', 'check is down'],
      ['PATCH', 'application/x-www-form-urlencoded', 'a=1'],
    ]);
  });

  it('the service’s headers win over the same names in the request', async () => {
    const target = await receiver();
    const headers = {
      'x-service-signature': 'forged',
      'User-Agent': 'curl',
      'webhook-id': 'other',
      'Content-Length': '1',
    };
    await deliverWebhook({ url: target.url, method: 'POST', headers, body: 'abc' }, { ...base, secret: 'k' });
    expect(target.received[0]?.headers).toMatchObject({
      'x-service-signature': createHmac('sha256', 'k').update('abc').digest('hex'),
      'user-agent': 'Vigil/0.1.0',
      'webhook-id': 'del_0001',
      'content-length': '3',
    });
  });

  it('sends a non-ASCII header value as its UTF-8 bytes', async () => {
    const target = await receiver();
    await deliverWebhook({ url: target.url, method: 'POST', headers: { 'X-Check': 'Çheck ✓ 🚨' }, body: '' }, base);
    const raw = target.received[0]?.rawHeaders ?? [];
    const value = raw[raw.findIndex((name) => name.toLowerCase() === 'x-check') + 1] ?? '';
    expect(Buffer.from(value, 'latin1').toString('utf8')).toBe('Çheck ✓ 🚨');
  });

  it('a 500 is a failure, with the status and the response', async () => {
    const target = await receiver((_req, res) => res.writeHead(500).end('{"error":"boom"}'));
    const result = await deliverWebhook({ url: target.url, method: 'POST', headers: {}, body: '{}' }, base);
    expect(result).toMatchObject({
      outcome: 'failed',
      statusCode: 500,
      error: 'receiver answered 500',
      responseBody: '{"error":"boom"}',
    });
  });

  it('a 399 is delivered and a 400 is not', async () => {
    const statuses = [399, 400];
    const target = await receiver((_req, res) => res.writeHead(statuses.shift() ?? 200).end());
    expect((await deliverWebhook({ url: target.url, method: 'POST', headers: {}, body: '' }, base)).outcome).toBe(
      'delivered',
    );
    expect((await deliverWebhook({ url: target.url, method: 'POST', headers: {}, body: '' }, base)).outcome).toBe(
      'failed',
    );
  });

  it('a 302 is delivered and the redirect is not followed', async () => {
    const target = await receiver((req, res) => res.writeHead(302, { Location: '/elsewhere' }).end());
    const result = await deliverWebhook({ url: `${target.url}/hook`, method: 'POST', headers: {}, body: '{}' }, base);
    expect(result).toMatchObject({ outcome: 'delivered', statusCode: 302 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(target.received.map((r) => r.url)).toEqual(['/hook']);
  });

  it('keeps only the first 4 KiB of the response, as text', async () => {
    const target = await receiver((req, res) => res.end(req.url === '/ascii' ? 'a'.repeat(10_000) : 'é'.repeat(3000)));
    const ascii = await deliverWebhook({ url: `${target.url}/ascii`, method: 'GET', headers: {}, body: '' }, base);
    expect(ascii.responseBody).toBe('a'.repeat(4096));
    const accented = await deliverWebhook(
      { url: `${target.url}/accented`, method: 'GET', headers: {}, body: '' },
      base,
    );
    expect(accented.responseBody).toBe('é'.repeat(2048));
  });

  it('a receiver that does not answer in time is a failure, and the socket is closed', async () => {
    let socketClosed: Promise<void> | undefined;
    const target = await receiver((req) => {
      socketClosed = new Promise((resolve) => req.socket.on('close', () => resolve()));
    });
    const result = await deliverWebhook(
      { url: target.url, method: 'POST', headers: {}, body: '{}' },
      { ...base, timeoutMs: 300 },
    );
    expect(result).toMatchObject({ outcome: 'failed', error: 'timed out after 300 ms' });
    expect(result.statusCode).toBeUndefined();
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(3000);
    await expect(socketClosed).resolves.toBeUndefined();
  });

  it('a refused connection is a failure', async () => {
    const target = await receiver();
    target.server.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const result = await deliverWebhook({ url: target.url, method: 'POST', headers: {}, body: '{}' }, base);
    expect(result.outcome).toBe('failed');
    expect(result.error).toMatch(/ECONNREFUSED/);
  });

  it('stops when the signal aborts', async () => {
    const target = await receiver(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const result = await deliverWebhook(
      { url: target.url, method: 'POST', headers: {}, body: '{}' },
      { ...base, signal: controller.signal },
    );
    expect(result).toMatchObject({ outcome: 'failed', error: 'aborted' });
  });

  it('refuses what cannot be sent at all, without throwing', async () => {
    const badSecret = await deliverWebhook(
      { url: 'http://x.test/', method: 'POST', headers: {}, body: '' },
      { ...base, secret: 'whsec_not base64!' },
    );
    expect(badSecret).toMatchObject({
      outcome: 'refused',
      error: 'refused: webhookSecret: a whsec_ secret must be base64 after the prefix',
    });
    const badHeader = await deliverWebhook(
      { url: 'http://x.test/', method: 'POST', headers: { 'X-A': 'line\nbreak' }, body: '' },
      base,
    );
    expect(badHeader).toMatchObject({
      outcome: 'refused',
      error: expect.stringMatching(/^refused: .*ERR_INVALID_CHAR|Invalid character/),
    });
  });

  it('refuses a URL that is not http or https, or not a URL', async () => {
    expect(
      await deliverWebhook({ url: 'ftp://example.com/x', method: 'POST', headers: {}, body: '' }, base),
    ).toMatchObject({
      outcome: 'refused',
      error: 'refused: only http and https URLs are delivered, not ftp:',
    });
    expect(await deliverWebhook({ url: 'not a url', method: 'POST', headers: {}, body: '' }, base)).toMatchObject({
      outcome: 'refused',
    });
  });
});

describe('deliverWebhook address policy (allowPrivate false)', () => {
  const guarded: DeliveryOptions = { ...base, allowPrivate: false, timeoutMs: 2000 };

  it('refuses the receiver on loopback by every spelling, and nothing reaches it', async () => {
    const target = await receiver();
    const cases: Array<[string, RegExp]> = [
      [`http://127.0.0.1:${target.port}/`, /127\.0\.0\.1 is in the loopback range 127\.0\.0\.0\/8/],
      [
        `http://localhost:${target.port}/`,
        /localhost resolves to a blocked address: (127\.0\.0\.1|::1) is in the loopback range/,
      ],
      [`http://[::1]:${target.port}/`, /::1 is in the loopback range ::1\/128/],
      [
        `http://[::ffff:127.0.0.1]:${target.port}/`,
        /::ffff:7f00:1 is the IPv4-mapped form of 127\.0\.0\.1, which is in the loopback range/,
      ],
      [`http://[::ffff:7f00:1]:${target.port}/`, /IPv4-mapped form of 127\.0\.0\.1/],
      [`http://2130706433:${target.port}/`, /127\.0\.0\.1 is in the loopback range/],
      [`http://0x7f.1:${target.port}/`, /127\.0\.0\.1 is in the loopback range/],
      [`http://127.0.0.1.:${target.port}/`, /loopback range/],
    ];
    for (const [url, reason] of cases) {
      const result = await deliverWebhook({ url, method: 'POST', headers: {}, body: '{}' }, guarded);
      expect(result.outcome, url).toBe('refused');
      expect(result.error, url).toMatch(reason);
    }
    expect(target.received).toHaveLength(0);
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is in the cloud metadata range 169.254.169.254/32'],
    ['http://10.0.0.1/hook', '10.0.0.1 is in the private range 10.0.0.0/8'],
    ['https://192.168.1.1/', '192.168.1.1 is in the private range 192.168.0.0/16'],
    ['http://100.100.100.200/', '100.100.100.200 is in the cloud metadata range 100.100.100.200/32'],
    ['http://[fd00:ec2::254]/', 'fd00:ec2::254 is in the cloud metadata range fd00:ec2::254/128'],
    ['http://[fe80::1]/', 'fe80::1 is in the link-local range fe80::/10'],
    ['http://100.64.1.1/', '100.64.1.1 is in the carrier-grade NAT range 100.64.0.0/10'],
  ])('refuses %s before connecting', async (url, reason) => {
    // The refusal needs no connection: a timeout would show one had been attempted.
    const result = await deliverWebhook(
      { url, method: 'POST', headers: {}, body: '{}' },
      { ...guarded, timeoutMs: 60_000 },
    );
    expect(result).toMatchObject({
      outcome: 'refused',
      error: `${reason}; set VIGIL_ALLOW_PRIVATE_TARGETS=true to deliver to private addresses`,
      responseBody: '',
    });
    expect(result.durationMs).toBeLessThan(1000);
  });

  it('with private targets allowed, still refuses cloud metadata: a literal address and a name that resolves to one', async () => {
    const literal = await deliverWebhook(
      { url: 'http://169.254.169.254/latest/meta-data/', method: 'GET', headers: {}, body: '' },
      { ...base, timeoutMs: 60_000 },
    );
    expect(literal).toMatchObject({ outcome: 'refused' });
    expect(literal.error).toMatch(/169\.254\.169\.254 is a cloud metadata address/);
    const toMetadata: Resolver = (_hostname, _options, callback) =>
      callback(null, [{ address: 'fd00:ec2::254', family: 6 }]);
    const named = await deliverWebhook(
      { url: 'http://meta.rebind.test/x', method: 'POST', headers: {}, body: '{}' },
      { ...base, resolve: toMetadata, timeoutMs: 60_000 },
    );
    expect(named).toMatchObject({ outcome: 'refused' });
    expect(named.error).toMatch(/meta\.rebind\.test resolves to fd00:ec2::254, a cloud metadata address/);
  });

  it('checks the addresses a name resolves to at connect time (DNS rebinding)', async () => {
    const target = await receiver();
    const lookups: string[] = [];
    const rebinding: Resolver = (hostname, _options, callback) => {
      lookups.push(hostname);
      callback(null, [{ address: '127.0.0.1', family: 4 }]);
    };
    const url = `http://hooks.rebind.test:${target.port}/x`;
    const refused = await deliverWebhook(
      { url, method: 'POST', headers: {}, body: '{}' },
      { ...guarded, resolve: rebinding },
    );
    expect(refused).toMatchObject({
      outcome: 'refused',
      error:
        'hooks.rebind.test resolves to a blocked address: 127.0.0.1 is in the loopback range 127.0.0.0/8; set VIGIL_ALLOW_PRIVATE_TARGETS=true to deliver to private addresses',
    });
    expect(lookups).toContain('hooks.rebind.test');
    expect(target.received).toHaveLength(0);

    // The same resolver with the policy lifted: the connection goes where the lookup said.
    const allowed = await deliverWebhook(
      { url, method: 'POST', headers: {}, body: '{}' },
      { ...base, resolve: rebinding },
    );
    expect(allowed.outcome).toBe('delivered');
    expect(target.received[0]?.headers.host).toBe(`hooks.rebind.test:${target.port}`);
  });

  it('refuses a name when any of its addresses is blocked', async () => {
    const mixed: Resolver = (_hostname, _options, callback) =>
      callback(null, [
        { address: '93.184.216.34', family: 4 },
        { address: '10.1.2.3', family: 4 },
      ]);
    const result = await deliverWebhook(
      { url: 'http://mixed.test/', method: 'POST', headers: {}, body: '' },
      { ...guarded, resolve: mixed },
    );
    expect(result).toMatchObject({
      outcome: 'refused',
      error: expect.stringContaining('10.1.2.3 is in the private range 10.0.0.0/8'),
    });
  });

  it('a name that does not resolve is a failure, not a refusal', async () => {
    const missing: Resolver = (hostname, _options, callback) =>
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    const result = await deliverWebhook(
      { url: 'http://nowhere.test/', method: 'POST', headers: {}, body: '' },
      { ...guarded, resolve: missing },
    );
    expect(result).toMatchObject({ outcome: 'failed', error: 'getaddrinfo ENOTFOUND nowhere.test' });
  });

  it('reports the headers it would have sent', async () => {
    const result = await deliverWebhook(
      { url: 'http://10.0.0.1/', method: 'POST', headers: { 'X-A': 'b' }, body: '{}' },
      { ...guarded, secret: 's' },
    );
    expect(result.requestHeaders).toEqual(
      prepareRequest(
        { url: '', method: 'POST', headers: { 'X-A': 'b' }, body: '{}' },
        { ...guarded, secret: 's', now: new Date() },
      ).headers,
    );
  });
});
