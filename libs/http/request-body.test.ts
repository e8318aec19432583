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
