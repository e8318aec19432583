import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleAtLeast, roles, type Role } from '#domain';
import { uniqueSuffix } from '#test-support';
import { client, createAccount, startVigil, type ApiClient, type TestVigil } from '#test-vigil';

// A cross-tenant matrix generated from /openapi.json, so a new route is covered without anyone
// listing it: every operation with a path parameter × every caller (each role, as a user key and
// as a service key) × account-header variants, with the other tenant's ids. A foreign id must
// answer exactly like an unknown one; naming the other account must never succeed. Operations whose
// body grants a role are found in the document too, and checked against the role ceiling.

type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
type Operation = { security?: unknown[]; parameters?: { in: string; name: string }[]; requestBody?: any };
type Schema = Record<string, any>;
interface Caller {
  name: string;
  role: Role;
  key: string;
}

let vigil: TestVigil;
let doc: Doc;
let mineId: string;
let theirsId: string;
let owner: ApiClient;
const callers: Caller[] = [];
/** The other tenant's value for a path parameter, by "resource/param". */
const foreign: Record<string, string> = {};
/** Tenant-neutral parameters: not owned by an account, so there is nothing to leak. */
const shared: Record<string, string> = {
  'runtimes/name': 'the runtime catalogue is the same for every account',
  'analytics/checkType': 'a check type, not an id',
};
/** Bodies that pass validation, so the request reaches the existence check (default {}). */
const bodies: Record<string, unknown> = {
  'PUT /v1/variables/{key}': { value: 'v' },
  'PUT /v1/check-groups/{id}': { name: 'g' },
  'PUT /v1/alert-channels/{id}': { config: { name: 'c', url: 'https://example.com/h' } },
  'PATCH /v1/users/{id}': { role: 'READ_ONLY' },
  'PUT /v1/private-locations/{id}': { name: 'p', slugName: 'p' },
};
let theirSecrets: string[] = [];
/** A private-location key of the other account: it must open the agent routes only. */
let theirLocationKey = '';

const email = () => `m-${uniqueSuffix()}@example.com`;

/**
 * "/v1/analytics/api-checks/{id}" → "analytics"; "/v1/check-results/{checkId}/{resultId}" → "check-results";
 * a trigger route keeps its target family ("/v1/triggers/check-groups/{id}" → "triggers/check-groups").
 */
function resourceOf(path: string): string {
  const [first = '', second = ''] = path.split('/').filter((part) => part && part !== 'v1');
  return first === 'triggers' ? `${first}/${second}` : first;
}

function idOperations(): { method: string; path: string; params: string[] }[] {
  const found: { method: string; path: string; params: string[] }[] = [];
  for (const [path, operations] of Object.entries(doc.paths))
    for (const [method, operation] of Object.entries(operations)) {
      const params = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
      if (params.length > 0 && !isPublic) found.push({ method: method.toUpperCase(), path, params });
    }
  return found;
}

function fill(path: string, values: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
}

function as(caller: Caller, header?: string): ApiClient {
  const base = client(vigil.url, caller.key);
  return {
    ...base,
    request: (method, path, options = {}) =>
      base.request(method, path, {
        ...options,
        headers: { ...options.headers, ...(header === undefined ? {} : { 'x-service-account': header }) },
      }),
  };
}

beforeAll(async () => {
  vigil = await startVigil({ env: { VIGIL_RATE_LIMIT_PER_MINUTE: '1000000' } });
  doc = (await vigil.admin.get<Doc>('/openapi.json')).body;
  const a = await createAccount(vigil, 'enterprise');
  const b = await createAccount(vigil, 'enterprise');
  mineId = a.accountId;
  theirsId = b.accountId;
  owner = a.owner;
  for (const role of roles) {
    if (role === 'OWNER') callers.push({ name: 'OWNER user key', role, key: a.ownerKey });
    else {
      const user = await owner.post('/v1/users', { email: email(), role });
      callers.push({ name: `${role} user key`, role, key: user.body.apiKey.key });
    }
    const service = await owner.post('/v1/api-keys', { name: `svc ${role}`, type: 'service', role });
    callers.push({ name: `${role} service key`, role, key: service.body.key });
  }
  for (const caller of callers) if (typeof caller.key !== 'string') throw new Error(`setup: no key for ${caller.name}`);

  // One of everything in the other tenant.
  const them = b.owner;
  const variable = `MATRIX_${uniqueSuffix().replace(/\W/g, '_')}`;
  const created = {
    key: await them.post('/v1/api-keys', { name: 'theirs', type: 'service', role: 'READ_ONLY' }),
    variable: await them.post('/v1/variables', { key: variable, value: 'their-value', locked: false }),
    group: await them.post('/v1/check-groups', { name: 'their group' }),
    check: await them.post('/v1/checks', {
      checkType: 'API',
      name: 'their check',
      request: { method: 'GET', url: 'https://example.com/their' },
    }),
    channel: await them.post('/v1/alert-channels', { config: { name: 'theirs', url: 'https://example.com/h' } }),
  };
  const slug = `their-${uniqueSuffix()}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  const page = await them.post('/v1/status-pages', { title: 'their page', slug, checkIds: [created.check.body.id] });
  const window = await them.post('/v1/maintenance-windows', {
    name: 'their window',
    checkIds: [created.check.body.id],
    startsAt: '2026-01-01T00:00:00Z',
    endsAt: '2026-01-01T01:00:00Z',
  });
  const location = await them.post('/v1/private-locations', { name: 'their location', slugName: 'their-location' });
  const locationKey = await them.post(`/v1/private-locations/${location.body.id}/keys`);
  const trigger = await them.post(`/v1/triggers/checks/${created.check.body.id}`);
  const groupTrigger = await them.post(`/v1/triggers/check-groups/${created.group.body.id}`);
  Object.assign(created, { page, window, location, locationKey, trigger, groupTrigger });
  theirLocationKey = locationKey.body.rawKey;
  for (const [name, response] of Object.entries(created))
    if (response.status !== 201) throw new Error(`setup: ${name}: ${response.status} ${JSON.stringify(response.body)}`);
  Object.assign(foreign, {
    'accounts/accountId': theirsId,
    'users/id': b.ownerId,
    'api-keys/id': created.key.body.id,
    'variables/key': variable,
    'checks/id': created.check.body.id,
    'triggers/checks/id': created.check.body.id,
    'triggers/check-groups/id': created.group.body.id,
    'analytics/id': created.check.body.id,
    'check-alerts/checkId': created.check.body.id,
    'check-results/checkId': created.check.body.id,
    'check-results/resultId': randomUUID(),
    'check-results/artifactId': randomUUID(),
    'check-groups/id': created.group.body.id,
    'alert-channels/id': created.channel.body.id,
    'alert-channels/deliveryId': randomUUID(),
    'status-pages/id': page.body.id,
    'maintenance-windows/id': window.body.id,
    'private-locations/id': location.body.id,
    'private-locations/keyId': locationKey.body.id,
  });
  theirSecrets = [
    variable,
    'their-value',
    'their group',
    'their check',
    'their page',
    'their window',
    'their location',
    b.ownerEmail,
    trigger.body.token,
    groupTrigger.body.token,
  ];
}, 180_000);
afterAll(async () => {
  await vigil?.stop();
});

describe('cross-tenant matrix, generated from /openapi.json', () => {
  it('covers every id route of the document with a foreign id', () => {
    const missing = idOperations().flatMap(({ method, path, params }) =>
      params
        .map((param) => `${resourceOf(path)}/${param}`)
        .filter((slot) => !(slot in foreign) && !(slot in shared))
        .map((slot) => `${method} ${path}: no foreign value for ${slot}`),
    );
    expect(missing).toEqual([]);
    expect(idOperations().length).toBeGreaterThan(20);
  });

  it('a foreign id answers like an unknown one, for every role and account header', async () => {
    const leaks: string[] = [];
    let requests = 0;
    for (const { method, path, params } of idOperations()) {
      const slots = params.map((param) => `${resourceOf(path)}/${param}`);
      if (slots.every((slot) => slot in shared)) continue;
      const theirs = Object.fromEntries(params.map((p, i) => [p, foreign[slots[i]!] ?? '']));
      const unknown = Object.fromEntries(
        params.map((p, i) => [
          p,
          slots[i]! in shared ? theirs[p]! : p === 'key' ? `NOPE_${uniqueSuffix()}` : randomUUID(),
        ]),
      );
      const operation = `${method} ${path}`;
      const body = bodies[operation] ?? (method === 'GET' || method === 'DELETE' ? undefined : {});
      for (const caller of callers) {
        // Same account: the foreign id must be indistinguishable from an unknown one.
        for (const header of [undefined, mineId]) {
          const send = (values: Record<string, string>) =>
            as(caller, header).request(method, fill(path, values), { body });
          const [answerForeign, answerUnknown] = [await send(theirs), await send(unknown)];
          requests += 2;
          const normalise = (answer: unknown, values: Record<string, string>) =>
            Object.values(values).reduce((text, value) => text.replaceAll(value, 'ID'), JSON.stringify(answer));
          const where = `${operation} as ${caller.name}, X-Service-Account ${header ? 'own' : 'absent'}`;
          if (answerForeign.status >= 200 && answerForeign.status < 300)
            leaks.push(`${where}: ${answerForeign.status} for a foreign id`);
          else if (
            answerForeign.status !== answerUnknown.status ||
            normalise(answerForeign.body, theirs) !== normalise(answerUnknown.body, unknown)
          )
            leaks.push(`${where}: foreign ${answerForeign.status}, unknown ${answerUnknown.status}`);
        }
        // Naming the other account, alone or beside one's own, never acts in it.
        for (const header of [theirsId, `${mineId}, ${theirsId}`, `${theirsId}, ${mineId}`, ` ${theirsId} `]) {
          const answer = await as(caller, header).request(method, fill(path, theirs), { body });
          requests += 1;
          const text = JSON.stringify(answer.body);
          if (answer.status < 400 || theirSecrets.some((secret) => text.includes(secret)))
            leaks.push(`${operation} as ${caller.name}, X-Service-Account "${header}": ${answer.status} ${text}`);
        }
      }
    }
    process.stdout.write(`tenant matrix: ${requests} requests, ${leaks.length} leaks\n`);
    expect(leaks).toEqual([]);
  }, 600_000);
});

describe('a private-location key, on every operation of the document', () => {
  it('opens nothing outside the agent routes: 401, 403 or 404, and never the other account’s data', async () => {
    expect(theirLocationKey).toMatch(/^pl_/);
    // The key works where it should, so the refusals below are about the routes, not the key.
    expect((await client(vigil.url, theirLocationKey).post('/v1/agent/leases', { max: 0, waitMs: 0 })).status).toBe(
      200,
    );
    const wrong: string[] = [];
    let tried = 0;
    for (const [path, operations] of Object.entries(doc.paths))
      for (const [method, operation] of Object.entries(operations)) {
        const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
        if (isPublic || path.startsWith('/v1/agent/')) continue;
        const values = Object.fromEntries(
          (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, randomUUID()]),
        );
        const upper = method.toUpperCase();
        const body = bodies[`${upper} ${path}`] ?? (upper === 'GET' || upper === 'DELETE' ? undefined : {});
        for (const header of [undefined, theirsId, mineId]) {
          const answer = await client(vigil.url, theirLocationKey, header).request(upper, fill(path, values), { body });
          tried += 1;
          if (![401, 403, 404].includes(answer.status)) wrong.push(`${upper} ${path}: ${answer.status}`);
        }
      }
    expect(wrong).toEqual([]);
    expect(tried).toBeGreaterThan(150);
  }, 120_000);
});

/** Operations whose request body has a `role` enum, wherever it sits (refs and unions resolved). */
function roleGrantingOperations(): { method: string; path: string; body: Schema }[] {
  const resolve = (schema: Schema | undefined): Schema | undefined =>
    schema?.$ref ? doc.components.schemas[String(schema.$ref).split('/').pop()!] : schema;
  const branches = (schema: Schema | undefined): Schema[] => {
    const resolved = resolve(schema);
    if (!resolved) return [];
    const union = resolved.anyOf ?? resolved.oneOf;
    return union ? (union as Schema[]).flatMap(branches) : [resolved];
  };
  const found: { method: string; path: string; body: Schema }[] = [];
  for (const [path, operations] of Object.entries(doc.paths))
    for (const [method, operation] of Object.entries(operations))
      for (const branch of branches(operation.requestBody?.content?.['application/json']?.schema))
        if (resolve(branch.properties?.role)?.enum || branches(branch.properties?.role).some((s) => s.enum))
          found.push({ method: method.toUpperCase(), path, body: branch });
  return found;
}

/** The smallest body the schema allows, with the role to grant. */
function bodyFor(schema: Schema, role: Role): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const property: Schema = schema.properties?.[name] ?? {};
    if (property.const !== undefined) body[name] = property.const;
    else if (property.enum) body[name] = property.enum[0];
    else if (property.format === 'email' || name === 'email') body[name] = email();
    else if (property.type === 'string') body[name] = `matrix ${name}`;
  }
  return { ...body, role };
}

describe('role ceiling on every operation of the document that grants a role', () => {
  it('allows a grant only to ADMIN or above and never above the caller', async () => {
    const operations = roleGrantingOperations();
    expect(operations.map(({ method, path }) => `${method} ${path}`)).toEqual(
      expect.arrayContaining(['POST /v1/users', 'POST /v1/api-keys', 'PATCH /v1/users/{id}']),
    );
    const wrong: string[] = [];
    for (const { method, path, body } of operations)
      for (const caller of callers)
        for (const granted of roles) {
          let url = path;
          if (path.includes('{id}')) {
            const target = await owner.post('/v1/users', { email: email(), role: 'READ_ONLY' });
            url = fill(path, { id: target.body.user.id });
          }
          const answer = await as(caller).request(method, url, { body: bodyFor(body, granted) });
          const allowed = roleAtLeast(caller.role, 'ADMIN') && roleAtLeast(caller.role, granted);
          const succeeded = answer.status >= 200 && answer.status < 300;
          if (allowed !== succeeded)
            wrong.push(`${method} ${path} as ${caller.name} granting ${granted}: ${answer.status}`);
        }
    expect(wrong).toEqual([]);
  }, 600_000);
});
