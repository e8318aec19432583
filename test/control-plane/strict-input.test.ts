import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type ApiClient, type TestVigil } from '#test-vigil';

// Strict input on the real API (issue 23, item 1; issue 28, bug 4): an unknown field, at any depth
// of any write route, or an unknown query parameter, is a 400 that names it, and the document says
// additionalProperties: false wherever the server is strict.

type Schema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};
type Operation = {
  requestBody?: { content?: Record<string, { schema?: Schema; examples?: Record<string, { value: unknown }> }> };
};
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

let vigil: TestVigil;
let owner: ApiClient;
let document: Document;

beforeAll(async () => {
  vigil = await startVigil();
  owner = (await createAccount(vigil, 'enterprise')).owner;
  document = (await vigil.admin.get<Document>('/openapi.json')).body;
}, 120_000);
afterAll(async () => vigil?.stop());

/** Every object in a JSON value, with its path as the API's messages write it. */
function objects(value: unknown, path: string[] = []): { path: string[]; object: Record<string, unknown> }[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => objects(item, [...path, String(index)]));
  if (typeof value !== 'object' || value === null) return [];
  return [
    { path, object: value as Record<string, unknown> },
    ...Object.entries(value).flatMap(([key, child]) => objects(child, [...path, key])),
  ];
}

function withExtra(value: unknown, path: string[], key: string): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  let node: Record<string, unknown> = copy;
  for (const part of path) node = node[part] as Record<string, unknown>;
  node[key] = 'typo';
  return copy;
}

describe('unknown body fields', () => {
  it('a misspelled top-level field is refused, naming it and the field meant, and nothing is created', async () => {
    const before = (await owner.get('/v1/checks')).body.length;
    const answer = await owner.post('/v1/checks', {
      name: 'Orders',
      checkType: 'API',
      degradedResponseTme: 3000,
      request: { url: 'https://api.example.com/' },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe('degradedResponseTme: unknown field; did you mean degradedResponseTime?');
    expect((await owner.get('/v1/checks')).body.length).toBe(before);
  });

  it('a field added to any object of any documented request example is refused by its path', async () => {
    const cases = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) =>
        Object.values(operation.requestBody?.content?.['application/json']?.examples ?? {}).map((example) => ({
          method: method.toUpperCase(),
          path,
          value: example.value,
        })),
      ),
    );
    expect(cases.length).toBeGreaterThanOrEqual(10);
    let checked = 0;
    for (const { method, path, value } of cases) {
      for (const { path: at, object } of objects(value)) {
        const first = Object.keys(object)[0];
        if (first === undefined) continue;
        const typo = `${first}x`;
        const answer = await owner.request(method, path, { body: withExtra(value, at, typo) });
        const where = `${method} ${path} at ${at.join('.') || '(root)'}`;
        expect(answer.status, `${where}: ${JSON.stringify(answer.body)}`).toBe(400);
        expect(answer.body.message, where).toContain([...at, typo].join('.') + ': unknown field');
        checked += 1;
      }
    }
    // Nested levels of checks, assertions, headers and every channel type's config among them.
    expect(checked).toBeGreaterThan(30);
  }, 120_000);

  it('each alert channel type refuses a misspelled config field, suggesting the real one', async () => {
    const channels: [Record<string, unknown>, string, string][] = [
      [{ type: 'WEBHOOK', config: { name: 'w', url: 'https://example.com/h', headrs: [] } }, 'headrs', 'headers'],
      [{ type: 'EMAIL', config: { name: 'e', adress: 'ops@example.com' } }, 'adress', 'address'],
      [{ type: 'SLACK', config: { name: 's', url: 'https://example.com/s', chanel: '#ops' } }, 'chanel', 'channel'],
      [{ type: 'PAGERDUTY', config: { name: 'p', serviceKy: 'k' } }, 'serviceKy', 'serviceKey'],
      [{ type: 'OPSGENIE', config: { name: 'o', apiKy: 'k' } }, 'apiKy', 'apiKey'],
      [{ type: 'MSTEAMS', config: { name: 'm', ur: 'https://example.com/t' } }, 'ur', 'url'],
      [{ type: 'DISCORD', config: { name: 'd', ur: 'https://example.com/d' } }, 'ur', 'url'],
      [{ type: 'TELEGRAM', config: { name: 't', chatID: '1' } }, 'chatID', 'chatId'],
    ];
    for (const [body, typo, meant] of channels) {
      const answer = await owner.post('/v1/alert-channels', body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      expect(answer.body.message, String(body.type)).toContain(`config.${typo}: unknown field; did you mean ${meant}?`);
    }
  });

  it('leaves free-form maps open: account settings take any keys', async () => {
    const answer = await owner.patch('/v1/accounts/me', { settings: { theme: 'dark', anything: { nested: 1 } } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.settings).toEqual({ theme: 'dark', anything: { nested: 1 } });
    expect((await owner.patch('/v1/accounts/me', { setings: {} })).body.message).toBe(
      'setings: unknown field; did you mean settings?',
    );
  });
});

describe('unknown query parameters', () => {
  it('are refused with a 400 naming them, on lists and on routes that take none', async () => {
    const list = await owner.get('/v1/checks?limit=5&pgae=2');
    expect(list.status).toBe(400);
    expect(list.body.message).toBe('pgae: unknown query parameter; did you mean page?');
    const me = await owner.get('/v1/accounts/me?expand=users');
    expect(me.status).toBe(400);
    expect(me.body.message).toBe('expand: unknown query parameter');
    expect((await owner.get('/v1/checks?limit=5&page=2')).status).toBe(200);
  });
});

describe('the OpenAPI document', () => {
  it('closes every object of every request body (additionalProperties: false); only maps stay open', () => {
    const open: string[] = [];
    let closed = 0;
    const seen = new Set<Schema>();
    const walk = (schema: Schema | undefined, where: string) => {
      if (!schema || seen.has(schema)) return;
      seen.add(schema);
      if (schema.$ref) return walk(document.components.schemas[schema.$ref.split('/').pop()!], where);
      if (schema.properties && schema.additionalProperties !== false) open.push(where);
      else if (schema.properties) closed += 1;
      for (const [name, child] of Object.entries(schema.properties ?? {})) walk(child, `${where}.${name}`);
      if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${where}.*`);
      walk(schema.items, `${where}[]`);
      for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
        walk(branch, where);
    };
    let bodies = 0;
    for (const [path, operations] of Object.entries(document.paths))
      for (const [method, operation] of Object.entries(operations)) {
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        if (!schema) continue;
        bodies += 1;
        walk(schema, `${method.toUpperCase()} ${path}`);
      }
    expect(bodies).toBeGreaterThan(15);
    expect(open).toEqual([]);
    expect(closed).toBeGreaterThan(50);
  });
});
