import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { createLogger } from '#core';
import { createHttpServer, zodRoutes } from './server.ts';
import { createMetricsRegistry } from './metrics.ts';
import { strictInput } from './strict-input.ts';

// Unknown fields and query parameters are refused, at every depth, with a 400 naming them and the
// nearest known name (issue 23, item 1; issue 28, bug 4), and the document says so.

let app: FastifyInstance;
let url: string;

const assertion = z.object({ source: z.enum(['STATUS_CODE', 'TEXT_BODY']), target: z.string() });
const channel = z.discriminatedUnion('type', [
  z.object({ type: z.literal('WEBHOOK'), config: z.object({ url: z.string(), method: z.string().optional() }) }),
  z.object({ type: z.literal('SLACK'), config: z.object({ url: z.string(), channel: z.string().optional() }) }),
]);
const body = z
  .object({
    name: z.string().describe('What the check is called'),
    degradedResponseTime: z.number().optional(),
    request: z
      .object({
        url: z.string(),
        headers: z.array(z.object({ key: z.string(), value: z.string() })).default([]),
        assertions: z.array(assertion).optional(),
      })
      .optional(),
    channel: channel.optional(),
    settings: z.record(z.string(), z.unknown()).optional(),
    labels: z.record(z.string(), z.object({ color: z.string() })).optional(),
    extra: z.looseObject({ kept: z.string().optional() }).optional(),
  })
  .refine((value) => value.name !== 'forbidden', { message: 'not that name', path: ['name'] });

beforeAll(async () => {
  app = await createHttpServer({
    log: createLogger({ level: 'silent' }),
    title: 'Test',
    version: '1',
    metrics: createMetricsRegistry(),
    readiness: [],
  });
  const routes = zodRoutes(app);
  routes.post('/checks', { schema: { summary: 'Create', body }, handler: async (request) => request.body });
  routes.get('/checks', {
    schema: {
      summary: 'List',
      querystring: z.object({ page: z.coerce.number().int().min(1).default(1), tag: z.string().optional() }),
    },
    handler: async (request) => request.query,
  });
  routes.get('/checks/:id', {
    schema: { summary: 'One', params: z.object({ id: z.string() }) },
    handler: async (request) => ({ id: request.params.id }),
  });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app?.close();
});

const post = async (value: unknown) => {
  const response = await fetch(`${url}/checks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(value),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('unknown body fields', () => {
  it('are refused with a 400 naming the field and the nearest known one', async () => {
    const answer = await post({ name: 'n', degradedResponseTme: 3000 });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe('degradedResponseTme: unknown field; did you mean degradedResponseTime?');
  });

  it('at every depth: nested objects, array items, each branch of a union', async () => {
    const nested = await post({ name: 'n', request: { url: 'u', headerz: [] } });
    expect(nested.body.message).toBe('request.headerz: unknown field; did you mean headers?');
    const item = await post({
      name: 'n',
      request: { url: 'u', assertions: [{ source: 'STATUS_CODE', target: '200', tagret: 1 }] },
    });
    expect(item.body.message).toBe('request.assertions.0.tagret: unknown field; did you mean target?');
    const header = await post({ name: 'n', request: { url: 'u', headers: [{ key: 'k', value: 'v', locked: true }] } });
    expect(header.body.message).toBe('request.headers.0.locked: unknown field');
    const slack = await post({ name: 'n', channel: { type: 'SLACK', config: { url: 'u', chanel: '#ops' } } });
    expect(slack.body.message).toBe('channel.config.chanel: unknown field; did you mean channel?');
    // A WEBHOOK's config has no channel: the branch the discriminator picks is the one that judges.
    const webhook = await post({ name: 'n', channel: { type: 'WEBHOOK', config: { url: 'u', channel: '#ops' } } });
    expect(webhook.body.message).toBe('channel.config.channel: unknown field');
  });

  it('names every unknown field, suggests nothing for a name far from any, and quotes odd ones', async () => {
    const answer = await post({ name: 'n', zzzzzz: 1, nmae: 2, 'a b\nc': 3 });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe(
      'zzzzzz: unknown field; nmae: unknown field; did you mean name?; "a b\\nc": unknown field',
    );
  });

  it('leaves records and objects declared loose open, and keeps defaults, refinements and valid bodies', async () => {
    const answer = await post({
      name: 'n',
      request: { url: 'u' },
      settings: { anything: { goes: true } },
      labels: { prod: { color: 'red' } },
      extra: { kept: 'k', other: 1 },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      name: 'n',
      request: { url: 'u', headers: [] },
      settings: { anything: { goes: true } },
      labels: { prod: { color: 'red' } },
      extra: { kept: 'k', other: 1 },
    });
    // A record's values are still held to their schema.
    const label = await post({ name: 'n', labels: { prod: { color: 'red', colour: 'red' } } });
    expect(label.body.message).toBe('labels.prod.colour: unknown field; did you mean color?');
    const refined = await post({ name: 'forbidden' });
    expect(refined.body.message).toBe('name: not that name');
  });
});

describe('unknown query parameters', () => {
  it('are refused with a 400 naming them, on routes with a query schema and on those without one', async () => {
    const listed = await fetch(`${url}/checks?page=2&tags=x`);
    expect(listed.status).toBe(400);
    expect(((await listed.json()) as { message: string }).message).toBe(
      'tags: unknown query parameter; did you mean tag?',
    );
    const one = await fetch(`${url}/checks/abc?verbose=1`);
    expect(one.status).toBe(400);
    expect(((await one.json()) as { message: string }).message).toBe('verbose: unknown query parameter');
    const fine = await fetch(`${url}/checks?page=2&tag=x`);
    expect(await fine.json()).toEqual({ page: 2, tag: 'x' });
    expect((await fetch(`${url}/checks/abc`)).status).toBe(200);
  });
});

describe('the OpenAPI document', () => {
  it('says additionalProperties: false at every depth of a request body, and not on records', async () => {
    const document = (await (await fetch(`${url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, any>>;
    };
    const schema = document.paths['/checks']!.post.requestBody.content['application/json'].schema;
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.name.description).toBe('What the check is called');
    const request = schema.properties.request;
    expect(request.additionalProperties).toBe(false);
    expect(request.properties.headers.items.additionalProperties).toBe(false);
    for (const branch of schema.properties.channel.oneOf ?? schema.properties.channel.anyOf) {
      expect(branch.additionalProperties).toBe(false);
      expect(branch.properties.config.additionalProperties).toBe(false);
    }
    expect(schema.properties.settings.additionalProperties).toEqual({});
    expect(schema.properties.labels.additionalProperties.additionalProperties).toBe(false);
    expect(schema.properties.extra.additionalProperties).not.toBe(false);
    expect(document.paths['/checks/{id}']!.get.parameters.map((p: { in: string }) => p.in)).toEqual(['path']);
  });
});

describe('strictInput', () => {
  it('returns the same schema when nothing inside drops keys, and holds recursive schemas', () => {
    const leaf = z.string().describe('a leaf');
    expect(strictInput(leaf)).toBe(leaf);
    const closed = z.strictObject({ a: z.string() });
    expect(strictInput(closed)).toBe(closed);
    const open = z.object({ a: z.string() });
    expect(strictInput(strictInput(open))).toBe(strictInput(open));

    interface Node {
      name: string;
      children: Node[];
    }
    const node: z.ZodType<Node> = z.object({ name: z.string(), children: z.array(z.lazy(() => node)) });
    const strict = strictInput(node);
    expect(strict.safeParse({ name: 'a', children: [{ name: 'b', children: [] }] }).success).toBe(true);
    const deep = strict.safeParse({ name: 'a', children: [{ name: 'b', children: [], x: 1 }] });
    expect(deep.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', path: ['children', 0] });
  });

  it('holds what a client sends through preprocess and transforms', () => {
    const pre = strictInput(z.preprocess((value) => value, z.object({ a: z.string() })));
    expect(pre.safeParse({ a: 'x', b: 1 }).success).toBe(false);
    const transformed = strictInput(z.object({ a: z.string() }).transform((value) => ({ ...value, b: 1 })));
    expect(transformed.safeParse({ a: 'x' }).data).toEqual({ a: 'x', b: 1 });
    expect(transformed.safeParse({ a: 'x', c: 1 }).success).toBe(false);
  });
});
