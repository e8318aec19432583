import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { createLogger } from '#core';
import { createHttpServer, zodRoutes } from './server.ts';
import { createMetricsRegistry } from './metrics.ts';

// How request bodies reach a route: what counts as no body, how encodings are decoded, and which
// errors a route can answer before its handler runs.

let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  app = await createHttpServer({
    log: createLogger({ level: 'silent' }),
    title: 'Test',
    version: '1',
    metrics: createMetricsRegistry(),
    readiness: [],
    bodyLimit: 64 * 1024,
  });
  const routes = zodRoutes(app);
  routes.post('/things', {
    schema: { body: z.object({ name: z.string() }) },
    handler: async (request) => ({ got: request.body }),
  });
  routes.post('/things/:id/rotate', {
    schema: { params: z.object({ id: z.string() }) },
    handler: async (request) => ({ rotated: request.params.id, body: request.body ?? null }),
  });
  routes.delete('/things/:id', {
    schema: { params: z.object({ id: z.string() }) },
    handler: async (request) => ({ deleted: request.params.id }),
  });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
});

const json = { 'content-type': 'application/json' };

describe('an empty body is no body', () => {
  it('a DELETE and a bodiless POST with Content-Type: application/json and zero bytes succeed', async () => {
    const deleted = await fetch(`${url}/things/a`, { method: 'DELETE', headers: json, body: '' });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ deleted: 'a' });
    const rotated = await fetch(`${url}/things/b/rotate`, { method: 'POST', headers: json, body: '' });
    expect(rotated.status).toBe(200);
    expect(await rotated.json()).toEqual({ rotated: 'b', body: null });
  });

  it('a route that needs a body still refuses an empty one, naming the body', async () => {
    const response = await fetch(`${url}/things`, { method: 'POST', headers: json, body: '' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/^body: /);
  });

  it('a body that is not JSON is still a 400, and a JSON one still parses', async () => {
    const bad = await fetch(`${url}/things`, { method: 'POST', headers: json, body: '{' });
    expect(bad.status).toBe(400);
    const good = await fetch(`${url}/things`, { method: 'POST', headers: json, body: '{"name":"n"}' });
    expect(await good.json()).toEqual({ got: { name: 'n' } });
    const poisoned = await fetch(`${url}/things`, { method: 'POST', headers: json, body: '{"__proto__":{"x":1}}' });
    expect(poisoned.status).toBe(400);
  });
});

describe('route first, then parse', () => {
  it('an unknown route is a 404 whatever its body, even one that does not parse', async () => {
    for (const method of ['POST', 'DELETE', 'PUT', 'PATCH']) {
      const response = await fetch(`${url}/no-such-thing/here`, { method, headers: json, body: '{not json' });
      expect(response.status, method).toBe(404);
      expect(await response.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-request-id')).toBeTruthy();
    }
    const unknownType = await fetch(`${url}/no-such-thing`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-whatever' },
      body: 'x',
    });
    expect(unknownType.status).toBe(404);
  });

  it('a known path with a method it lacks is a 405 with Allow, whatever its body', async () => {
    const response = await fetch(`${url}/things`, { method: 'PUT', headers: json, body: '{not json' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('Content-Encoding', () => {
  const body = JSON.stringify({ name: 'compressed' });
  const send = (encoding: string, bytes: Buffer, path = '/things') =>
    fetch(`${url}${path}`, { method: 'POST', headers: { ...json, 'content-encoding': encoding }, body: bytes });

  it('decodes gzip, deflate and br bodies (and a list of codings, last applied first undone)', async () => {
    const encoded: [string, Buffer][] = [
      ['gzip', gzipSync(body)],
      ['x-gzip', gzipSync(body)],
      ['deflate', deflateSync(body)],
      ['br', brotliCompressSync(body)],
      ['GZIP', gzipSync(body)],
      ['identity', Buffer.from(body)],
      ['gzip, br', brotliCompressSync(gzipSync(body))],
    ];
    for (const [encoding, bytes] of encoded) {
      const response = await send(encoding, bytes);
      expect(response.status, encoding).toBe(200);
      expect(await response.json()).toEqual({ got: { name: 'compressed' } });
    }
  });

  it('applies the body limit to the decoded size: a small compression bomb is a 413', async () => {
    const bomb = gzipSync(Buffer.alloc(20 * 1024 * 1024, ' '));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const response = await send('gzip', bomb);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ statusCode: 413, message: expect.stringMatching(/decoded/) });
    const brotli = await send('br', brotliCompressSync(Buffer.alloc(20 * 1024 * 1024, ' ')));
    expect(brotli.status).toBe(413);
  });

  it('refuses any other encoding with a 415 naming it, and a body that does not decode with a 400', async () => {
    const unknown = await send('zstd', Buffer.from(body));
    expect(unknown.status).toBe(415);
    expect((await unknown.json()) as { message: string }).toMatchObject({ message: expect.stringMatching(/zstd/) });
    const corrupt = await send('gzip', Buffer.from(body));
    expect(corrupt.status).toBe(400);
    expect((await corrupt.json()) as { message: string }).toMatchObject({ message: expect.stringMatching(/gzip/) });
    const truncated = await send('gzip', gzipSync(body).subarray(0, 20));
    expect(truncated.status).toBe(400);
  });

  it('an encoded empty body, or an encoding header on a request without one, is no body', async () => {
    const rotated = await fetch(`${url}/things/c/rotate`, {
      method: 'POST',
      headers: { ...json, 'content-encoding': 'gzip' },
      body: '',
    });
    expect(rotated.status).toBe(200);
    const gzippedEmpty = await send('gzip', gzipSync(''), '/things/d/rotate');
    expect(gzippedEmpty.status).toBe(200);
  });
});
