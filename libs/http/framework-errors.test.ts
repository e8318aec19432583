import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { createLogger } from '#core';
import { createHttpServer, zodRoutes } from './server.ts';
import { createMetricsRegistry } from './metrics.ts';
import { errorResponses } from './errors.ts';
import { operationId } from './openapi.ts';

// The server and its OpenAPI document agree: every status the framework itself sends is in the
// one error shape, never echoes the raw path, and is documented on every operation.

let app: FastifyInstance;
let url: string;

const thing = z.object({ id: z.string(), name: z.string() }).meta({ id: 'Thing' });

beforeAll(async () => {
  app = await createHttpServer({
    log: createLogger({ level: 'silent' }),
    title: 'Vigil API',
    version: '1',
    metrics: createMetricsRegistry(),
    readiness: [],
    describeRoute: (route) =>
      route.config && 'secured' in route.config
        ? { notes: ['Needs a key.'], statuses: [401], headers: { 'x-service-account': z.string().optional() } }
        : { security: [] },
  });
  const routes = zodRoutes(app);
  routes.get('/things/:id', {
    config: { secured: true } as never,
    schema: { summary: 'One thing', params: z.object({ id: z.string().max(64) }), response: { 200: thing } },
    handler: async (request) => ({ id: request.params.id, name: 'n' }),
  });
  routes.post('/things', {
    schema: { summary: 'Create a thing', body: thing, response: { 201: thing, ...errorResponses(400) } },
    handler: async (request, reply) => reply.code(201).send(request.body),
  });
  routes.post('/things/preview', { schema: { summary: 'Preview a thing' }, handler: async () => ({}) });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
});

/** Sends raw bytes, so malformed requests reach the server as written. */
function raw(request: string): Promise<{ status: number; body: unknown; head: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.end(request));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body: JSON.parse(body) });
    });
  });
}

const shape = { statusCode: expect.any(Number), error: expect.any(String), message: expect.any(String) };

describe('framework errors use the one error shape', () => {
  it('a malformed percent-encoding is a 400 that does not echo the path', async () => {
    const response = await fetch(`${url}/things/%zz-secret-path`);
    const body = (await response.json()) as Record<string, unknown>;
    expect(response.status).toBe(400);
    expect(body).toEqual(shape);
    expect(Object.keys(body).sort()).toEqual(['error', 'message', 'statusCode']);
    expect(JSON.stringify(body)).not.toContain('secret-path');
  });

  it('an over-long id is a 400 naming the field; an over-long URL is a 414', async () => {
    const id = await fetch(`${url}/things/${'a'.repeat(300)}`);
    expect(id.status).toBe(400);
    expect(await id.json()).toMatchObject({ statusCode: 400, message: expect.stringMatching(/^id: /) });
    const long = await fetch(`${url}/things/${'b'.repeat(9000)}`);
    expect(long.status).toBe(414);
    const body = await long.json();
    expect(body).toEqual(shape);
    expect(JSON.stringify(body)).not.toContain('bbbb');
  });

  it('headers too large are a 431 and a malformed header line a 400, both in the shape', async () => {
    const big = await raw(`GET /things/1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'c'.repeat(20_000)}\r\n\r\n`);
    expect(big.status).toBe(431);
    expect(big.body).toEqual({ ...shape, statusCode: 431 });
    const bad = await raw('GET /things/1 HTTP/1.1\r\nHost: x\r\nNot a header\r\n\r\n');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ ...shape, statusCode: 400 });
  });

  it('an undeclared method on a known path is a 405 with Allow; an unknown path a 404 without the path', async () => {
    const response = await fetch(`${url}/things/1`, { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(await response.json()).toMatchObject({ statusCode: 405, error: 'Method Not Allowed' });
    const query = await raw('QUERY /things HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n');
    expect(query.status).toBe(405);
    expect(query.head.toLowerCase()).toContain('allow: post');
    // A static segment is its own path: /things/preview has POST only, not the methods of /things/:id.
    const preview = await fetch(`${url}/things/preview`, { method: 'OPTIONS' });
    expect(preview.status).toBe(405);
    expect(preview.headers.get('allow')).toBe('POST');
    const missing = await fetch(`${url}/nothing-here-xyz`);
    expect(missing.status).toBe(404);
    expect(JSON.stringify(await missing.json())).not.toContain('nothing-here-xyz');
  });
});

describe('the OpenAPI document', () => {
  it('gives every operation an operationId, a description and every status the server can send', async () => {
    const document = (await (await fetch(`${url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Record<string, any>>>;
      components: { schemas: Record<string, unknown> };
    };
    const one = document.paths['/things/{id}']!.get!;
    expect(one.operationId).toBe('getThingsById');
    expect(one.description).toContain('One thing.');
    expect(one.description).toContain('Needs a key.');
    expect(Object.keys(one.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '414', '431']));
    expect(one.parameters.map((p: { name: string }) => p.name)).toContain('x-service-account');
    const create = document.paths['/things']!.post!;
    expect(create.security).toEqual([]);
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['413', '415']));
    // Input and output are the same schema, so the document has one, not a Thing and a ThingInput.
    expect(Object.keys(document.components.schemas)).toContain('Thing');
    expect(Object.keys(document.components.schemas)).not.toContain('ThingInput');
    expect(Object.keys(document.components.schemas)).not.toContain('ErrorInput');
    expect(JSON.stringify(create.requestBody)).toContain('#/components/schemas/Thing"');
  });

  it('derives unique operation ids from method and path', () => {
    expect(operationId('POST', '/v1/alert-channels/:id/deliveries/:deliveryId/retry')).toBe(
      'postAlertChannelsByIdDeliveriesByDeliveryIdRetry',
    );
    expect(operationId('GET', '/v1/checks')).toBe('getChecks');
  });

  it('/docs carries the API name, not the framework name', async () => {
    const html = await (await fetch(`${url}/docs/`)).text();
    expect(html).toContain('<title>Vigil API reference</title>');
    const initializer = await (await fetch(`${url}/docs/static/swagger-initializer.js`)).text();
    const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(initializer)?.[1] ?? '';
    expect(Buffer.from(logo, 'base64').toString()).toContain('Vigil API');
  });
});
