import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleAtLeast, roles, type Role } from '#domain';
import { uniqueSuffix } from '#test-support';
import { createAccount, startVigil, type ApiClient, type TestVigil } from '#test-vigil';

// The role ceiling through the HTTP API, as a generated table: every caller (each role, as a user
// key and as a service key) × every role granted or touched × every route that grants or touches
// one. Allowed exactly when the caller is ADMIN or above and the role is not above the caller's.

type Kind = 'user key' | 'service key';
interface Caller {
  kind: Kind;
  role: Role;
  client: ApiClient;
}

let vigil: TestVigil;
let owner: ApiClient;
let accountId: string;
const callers: Caller[] = [];

const email = () => `member-${uniqueSuffix()}@example.com`;

async function member(role: Role): Promise<{ id: string; key: string | null }> {
  const response = await owner.post('/v1/users', { email: email(), role });
  if (response.status !== 201) throw new Error(`setup: ${response.status} ${JSON.stringify(response.body)}`);
  return { id: response.body.user.id, key: response.body.apiKey?.key ?? null };
}

async function serviceKey(role: Role): Promise<{ id: string; key: string }> {
  const response = await owner.post('/v1/api-keys', { name: `svc ${role}`, type: 'service', role });
  if (response.status !== 201) throw new Error(`setup: ${response.status} ${JSON.stringify(response.body)}`);
  return { id: response.body.id, key: response.body.key };
}

interface Route {
  name: string;
  /** Sends the request; setup runs as the account's original owner. */
  send(caller: ApiClient, role: Role): Promise<number>;
  success: number;
}

const routes: Route[] = [
  {
    name: 'POST /v1/api-keys (service key with role)',
    success: 201,
    send: async (caller, role) => (await caller.post('/v1/api-keys', { name: 'k', type: 'service', role })).status,
  },
  {
    name: 'POST /v1/users (new member with role)',
    success: 201,
    send: async (caller, role) => (await caller.post('/v1/users', { email: email(), role })).status,
  },
  {
    name: 'PATCH /v1/users/{id} (promote a READ_ONLY member to role)',
    success: 200,
    send: async (caller, role) => {
      const target = await member('READ_ONLY');
      return (await caller.patch(`/v1/users/${target.id}`, { role })).status;
    },
  },
  {
    name: 'PATCH /v1/users/{id} (demote a member of role to READ_ONLY)',
    success: 200,
    send: async (caller, role) => {
      const target = await member(role);
      return (await caller.patch(`/v1/users/${target.id}`, { role: 'READ_ONLY' })).status;
    },
  },
  {
    name: 'DELETE /v1/users/{id} (a member of role)',
    success: 204,
    send: async (caller, role) => {
      const target = await member(role);
      return (await caller.delete(`/v1/users/${target.id}`)).status;
    },
  },
  {
    name: 'DELETE /v1/api-keys/{id} (a service key of role)',
    success: 204,
    send: async (caller, role) => {
      const target = await serviceKey(role);
      return (await caller.delete(`/v1/api-keys/${target.id}`)).status;
    },
  },
];

interface OpenApi {
  paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: unknown }> } }>>;
  components?: { schemas?: Record<string, unknown> };
}

/** Whether a request-body schema has, anywhere inside it, a value that is one of the roles. */
function grantsRole(doc: OpenApi, schema: unknown, seen = new Set<unknown>()): boolean {
  if (schema === null || typeof schema !== 'object' || seen.has(schema)) return false;
  seen.add(schema);
  const node = schema as Record<string, unknown>;
  if (typeof node.$ref === 'string') {
    const target = doc.components?.schemas?.[node.$ref.replace('#/components/schemas/', '')];
    return grantsRole(doc, target, seen);
  }
  if (Array.isArray(node.enum) && roles.every((role) => (node.enum as unknown[]).includes(role))) return true;
  return Object.values(node).some((child) =>
    Array.isArray(child) ? child.some((item) => grantsRole(doc, item, seen)) : grantsRole(doc, child, seen),
  );
}

const kinds: Kind[] = ['user key', 'service key'];
const table = routes.flatMap((route) =>
  kinds.flatMap((kind) =>
    roles.flatMap((callerRole) =>
      roles.map((role) => ({
        route,
        kind,
        callerRole,
        role,
        expected: roleAtLeast(callerRole, 'ADMIN') && roleAtLeast(callerRole, role) ? route.success : 403,
      })),
    ),
  ),
);

describe('role ceiling through the HTTP API', () => {
  beforeAll(async () => {
    vigil = await startVigil({ env: { VIGIL_RATE_LIMIT_PER_MINUTE: '1000000' } });
    const account = await createAccount(vigil, 'enterprise');
    owner = account.owner;
    accountId = account.accountId;
    for (const role of roles) {
      const user = await member(role);
      callers.push({ kind: 'user key', role, client: vigil.as(user.key, accountId) });
      const key = await serviceKey(role);
      callers.push({ kind: 'service key', role, client: vigil.as(key.key) });
    }
  }, 60_000);
  afterAll(async () => {
    await vigil?.stop();
  });

  it('covers every route × caller kind × caller role × role', () => {
    expect(table).toHaveLength(routes.length * kinds.length * roles.length * roles.length);
    expect(callers).toHaveLength(kinds.length * roles.length);
  });

  it.each(table.map((row) => [row.route.name, row.kind, row.callerRole, row.role, row.expected, row] as const))(
    '%s: %s with role %s, role %s → %i',
    async (_name, kind, callerRole, role, expected, row) => {
      const caller = callers.find((c) => c.kind === kind && c.role === callerRole)!;
      expect(await row.route.send(caller.client, role)).toBe(expected);
    },
  );

  it('every route whose body grants a role (found in /openapi.json) is in the table', async () => {
    const doc = (await (await fetch(`${vigil.url}/openapi.json`)).json()) as OpenApi;
    const granting = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => grantsRole(doc, operation.requestBody?.content?.['application/json']?.schema))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    const covered = new Set(routes.map((route) => route.name.split(' (')[0]));
    expect(granting).toEqual(expect.arrayContaining(['POST /v1/api-keys', 'POST /v1/users', 'PATCH /v1/users/{id}']));
    for (const route of granting) expect(covered, `${route} grants a role but is not in the table`).toContain(route);
  });

  it('the take-over from the report is refused: an ADMIN key cannot mint an OWNER key, the owner stays', async () => {
    const admin = callers.find((c) => c.kind === 'service key' && c.role === 'ADMIN')!;
    const minted = await admin.client.post('/v1/api-keys', { name: 'takeover', type: 'service', role: 'OWNER' });
    expect(minted.status).toBe(403);
    expect(minted.body.message).toMatch(/OWNER/);
    expect((await owner.get('/v1/accounts/me')).status).toBe(200);
  });
});
