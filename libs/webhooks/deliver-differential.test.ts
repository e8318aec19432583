import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpsServer, selfSignedCertificate } from '../probes/test-helpers.ts';
import {
  deliverWebhookWith,
  type DeliveryClient,
  type DeliveryOptions,
  type DeliveryResult,
  type Resolver,
  type WebhookRequest,
} from './deliver.ts';

/** One request as it arrived on the wire: request line, header lines as sent, body bytes. */
interface Wire {
  line: string;
  headers: [name: string, value: string][];
  body: Buffer;
}

/**
 * A raw TCP receiver on loopback, so the test sees the bytes each client writes (a Node HTTP
 * server would normalise them). It answers by path: /ok 200, /missing 404, /error 500 (each with
 * a short body), /big 200 with 10 KiB, /silent never, /reset closes the connection on receipt.
 */
function rawReceiver(): { server: Server; seen: Wire[]; sockets: Set<Socket> } {
  const seen: Wire[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffered = Buffer.alloc(0);
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end === -1) return;
        const [line = '', ...rest] = buffered.subarray(0, end).toString('latin1').split('\r\n');
        const headers = rest.map((text) => {
          const colon = text.indexOf(':');
          return [text.slice(0, colon), text.slice(colon + 1).trim()] as [string, string];
        });
        const length = Number(headers.find(([name]) => name.toLowerCase() === 'content-length')?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const body = Buffer.from(buffered.subarray(end + 4, end + 4 + length));
        buffered = buffered.subarray(end + 4 + length);
        seen.push({ line, headers, body });
        answer(socket, line.split(' ')[1] ?? '');
      }
    });
  });
  return { server, seen, sockets };
}

function answer(socket: Socket, path: string): void {
  const reply = (status: string, body: string) =>
    socket.write(`HTTP/1.1 ${status}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  if (path.startsWith('/ok')) reply('200 OK', 'fine');
  else if (path.startsWith('/missing')) reply('404 Not Found', 'no such hook');
  else if (path.startsWith('/error')) reply('500 Internal Server Error', 'broken');
  else if (path.startsWith('/big')) reply('200 OK', 'é'.repeat(5000));
  else if (path.startsWith('/reset')) socket.destroy();
  // /silent: no answer; the attempt's timeout ends it.
}

/** Headers the HTTP client writes itself: compared by value, as their name's case and place are the client's. */
const CLIENT_HEADERS = new Set(['host', 'content-length', 'connection']);

function normalise(wire: Wire) {
  const own = wire.headers.filter(([name]) => !CLIENT_HEADERS.has(name.toLowerCase()));
  const client = Object.fromEntries(
    wire.headers.filter(([name]) => CLIENT_HEADERS.has(name.toLowerCase())).map(([n, v]) => [n.toLowerCase(), v]),
  );
  return { line: wire.line, own, client, body: wire.body.toString('hex') };
}

const outcomeOf = ({ durationMs: _durationMs, ...rest }: DeliveryResult) => rest;

describe('deliverWebhook: undici and node:http send the same requests and reach the same outcomes', () => {
  const { server, seen, sockets } = rawReceiver();
  let base = '';
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    // Both clients keep their connections open; the receiver ends them.
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const options: DeliveryOptions = {
    timeoutMs: 400,
    allowPrivate: true,
    userAgent: 'Vigil/test',
    deliveryId: 'd-diff',
    secret: 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=',
    now: new Date('2026-01-02T03:04:05Z'),
  };

  const requests = (): WebhookRequest[] => [
    { url: `${base}/ok?a=1&b=%20x#frag`, method: 'post', headers: { 'X-Team': 'Zurich' }, body: '{"a":"ü ✓"}' },
    { url: `${base}/ok/utf8-header`, method: 'POST', headers: { 'X-Team': 'Zürich ✓' }, body: '' },
    { url: `http://user:p%40ss@127.0.0.1:${port}/ok/auth`, method: 'PUT', headers: { 'x-a': 'b' }, body: 'plain' },
    { url: `${base}/ok/get`, method: 'GET', headers: { Accept: '*/*' }, body: 'dropped' },
    { url: `${base}/ok/empty`, method: 'POST', headers: {}, body: '' },
    { url: `${base}/ok/patch`, method: 'PATCH', headers: { 'X-Many': 'one, two' }, body: '' },
    { url: `${base}/ok/delete`, method: 'DELETE', headers: {}, body: '' },
    { url: `${base}/ok/delete-body`, method: 'DELETE', headers: {}, body: '{"gone":true}' },
    { url: `${base}/ok/head`, method: 'HEAD', headers: {}, body: 'dropped' },
    {
      url: `http://u:p@127.0.0.1:${port}/ok/own-auth`,
      method: 'POST',
      headers: { Authorization: 'Bearer t' },
      body: '{}',
    },
    { url: `${base}/ok/host`, method: 'POST', headers: { Host: 'evil.test', 'Content-Length': '1' }, body: '{}' },
    { url: `${base}/missing`, method: 'POST', headers: {}, body: '{}' },
    { url: `${base}/error`, method: 'POST', headers: {}, body: '{}' },
    { url: `${base}/big`, method: 'POST', headers: {}, body: '{}' },
    { url: `${base}/silent`, method: 'POST', headers: {}, body: '{}' },
    { url: `${base}/reset`, method: 'POST', headers: {}, body: '{}' },
  ];

  async function through(client: DeliveryClient, request: WebhookRequest) {
    seen.length = 0;
    const result = await deliverWebhookWith(client, request, options);
    // A request the receiver never answers or resets is on the wire before the result.
    return { result: outcomeOf(result), wire: seen.map(normalise) };
  }

  it('byte-identical request lines, header values and bodies; the same outcome for every answer', async () => {
    for (const request of requests()) {
      const node = await through('node', request);
      const undici = await through('undici', request);
      expect(node.wire, request.url).toHaveLength(1);
      // undici closes the connection after a HEAD (its framing cannot be checked), node:http keeps it.
      if (request.method === 'HEAD') {
        expect(undici.wire[0]?.client.connection).toBe('close');
        undici.wire[0]!.client.connection = 'keep-alive';
      }
      expect(undici, `${request.method} ${request.url}`).toEqual(node);
    }
  });

  it('a non-ASCII header value goes out as its UTF-8 bytes with a body too (node:http, given a string body, encoded the head twice)', async () => {
    const request = { url: `${base}/ok`, method: 'POST', headers: { 'X-Team': 'Zürich ✓' }, body: '{}' };
    const undici = await through('undici', request);
    const node = await through('node', request);
    const value = (wire: { own: [string, string][] }) =>
      Buffer.from(wire.own.find(([name]) => name === 'X-Team')![1], 'latin1').toString('utf8');
    expect(value(undici.wire[0]!)).toBe('Zürich ✓');
    expect(value(node.wire[0]!)).not.toBe('Zürich ✓');
    expect(undici.result).toEqual(node.result);
    expect(undici.wire[0]!.body).toBe(node.wire[0]!.body);
  });

  it('the same refusals: a literal private address, a name resolving to one, a header that cannot be sent', async () => {
    const guarded = { ...options, allowPrivate: false };
    const toPrivate: Resolver = (_hostname, _options, callback) => callback(null, [{ address: '10.1.2.3', family: 4 }]);
    const cases: [WebhookRequest, DeliveryOptions][] = [
      [{ url: `${base}/ok`, method: 'POST', headers: {}, body: '{}' }, guarded],
      [{ url: `http://[::1]:${port}/ok`, method: 'POST', headers: {}, body: '{}' }, guarded],
      [
        { url: `http://hooks.rebind.test:${port}/ok`, method: 'POST', headers: {}, body: '{}' },
        { ...guarded, resolve: toPrivate },
      ],
      [{ url: `http://169.254.169.254/latest`, method: 'POST', headers: {}, body: '{}' }, options],
      [{ url: `${base}/ok`, method: 'POST', headers: { 'X-A': 'line\nbreak' }, body: '{}' }, options],
      [{ url: `${base}/ok`, method: 'POST', headers: { 'Bad Name': 'x' }, body: '{}' }, options],
    ];
    for (const [request, opts] of cases) {
      seen.length = 0;
      const node = outcomeOf(await deliverWebhookWith('node', request, opts));
      const undici = outcomeOf(await deliverWebhookWith('undici', request, opts));
      expect(node.outcome, request.url).toBe('refused');
      expect(undici, request.url).toEqual(node);
      expect(seen).toHaveLength(0);
    }
  });

  it('TLS as before: a certificate no CA vouches for is the same failure, and nothing is delivered', async () => {
    let reached = 0;
    const server = await httpsServer(await selfSignedCertificate(2), (_req, res) => {
      reached++;
      res.end('ok');
    });
    const request = { url: `${server.url}/ok`, method: 'POST', headers: {}, body: '{}' };
    const node = outcomeOf(await deliverWebhookWith('node', request, options));
    const undici = outcomeOf(await deliverWebhookWith('undici', request, options));
    expect(node).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/self-signed certificate/) });
    expect(undici).toEqual(node);
    expect(reached).toBe(0);
    await server.close();
  });

  it('hop-by-hop headers a channel sets (Upgrade, Keep-Alive, Expect, TE, Trailer) are dropped, as Connection is, and the delivery goes out', async () => {
    for (const [name, value] of [
      ['Upgrade', 'websocket'],
      ['Keep-Alive', 'timeout=5'],
      ['Expect', '100-continue'],
      ['TE', 'trailers'],
      ['Trailer', 'x-a'],
    ] as const) {
      seen.length = 0;
      const request = { url: `${base}/ok`, method: 'POST', headers: { [name]: value, 'X-Kept': 'yes' }, body: '{}' };
      const result = await deliverWebhookWith('undici', request, options);
      expect(result.outcome, name).toBe('delivered');
      expect(seen, name).toHaveLength(1);
      const names = seen[0]!.headers.map(([header]) => header.toLowerCase());
      expect(names, name).toContain('x-kept');
      expect(names, name).not.toContain(name.toLowerCase());
    }
  });

  it('a refused connection is the same failure', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/ok`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const request = { url, method: 'POST', headers: {}, body: '{}' };
    const node = outcomeOf(await deliverWebhookWith('node', request, options));
    const undici = outcomeOf(await deliverWebhookWith('undici', request, options));
    expect(node).toMatchObject({ outcome: 'failed', error: expect.stringMatching(/ECONNREFUSED/) });
    expect(undici).toEqual(node);
  });
});
