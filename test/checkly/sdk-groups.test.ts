import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createAccount, startVigil, type TestVigil } from '#test-vigil';
import { numericId } from '../../apps/api/src/checkly/ids.ts';

/**
 * Check groups as the Go SDK (types.go at be7d3f0) writes them: its Group type marshalled whole,
 * zero values included, on POST /v1/check-groups and PUT|DELETE /v1/check-groups/{numeric id}.
 */
let vigil: TestVigil;
let owner: Awaited<ReturnType<typeof createAccount>>;
let stranger: Awaited<ReturnType<typeof createAccount>>;
let readOnlyKey: string;

beforeAll(async () => {
  vigil = await startVigil();
  owner = await createAccount(vigil, 'team');
  stranger = await createAccount(vigil, 'team');
  readOnlyKey = (await owner.owner.post('/v1/users', { email: `ro-${Date.now()}@example.com`, role: 'READ_ONLY' })).body
    .apiKey.key;
});
afterAll(async () => vigil?.stop());

function sdkGroup(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Payments',
    activated: true,
    muted: false,
    runParallel: false,
    tags: ['pay'],
    locations: [],
    concurrency: 1,
    apiCheckDefaults: { url: '', basicAuth: { username: '', password: '' } },
    environmentVariables: [{ key: 'PAY_HOST', value: 'pay.internal', locked: true, secret: false }],
    useGlobalAlertSettings: true,
    alertSettings: {
      runBasedEscalation: {},
      timeBasedEscalation: {},
      reminders: {},
      parallelRunFailureThreshold: {},
      sslCertificates: {},
    },
    createdAt: '0001-01-01T00:00:00Z',
    updatedAt: '0001-01-01T00:00:00Z',
    runtimeId: null,
    privateLocations: [],
    retryStrategy: null,
    doubleCheck: false,
    ...overrides,
  };
}

const as = (key: string, account: string) => {
  const api = client(`${vigil.url}/checkly`, key);
  const headers = { 'x-checkly-account': account };
  return {
    get: (path: string) => api.get(path, headers),
    post: (path: string, body: unknown) => api.post(path, body, headers),
    put: (path: string, body: unknown) => api.put(path, body, headers),
    delete: (path: string) => api.delete(path, headers),
  };
};

describe('check groups in the SDK shape', () => {
  it('create, read, update and delete by numeric id, read back through /v1', async () => {
    const sdk = as(owner.ownerKey, owner.accountId);
    const created = await sdk.post('/v1/check-groups?autoAssignAlerts=false', sdkGroup());
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as number;
    expect(Number.isSafeInteger(id)).toBe(true);
    const vigilGroup = ((await owner.owner.get('/v1/check-groups')).body as Array<{ id: string; name: string }>).find(
      (group) => group.name === 'Payments',
    )!;
    expect(numericId(vigilGroup.id)).toBe(id);
    expect((await sdk.get(`/v1/check-groups/${id}`)).body).toMatchObject({ id, name: 'Payments', tags: ['pay'] });

    const put = await sdk.put(`/v1/check-groups/${id}?autoAssignAlerts=false`, sdkGroup({ name: 'Payments EU', id }));
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await owner.owner.get(`/v1/check-groups/${vigilGroup.id}`)).body).toMatchObject({ name: 'Payments EU' });

    // Same role rules as /v1, and the one masking rule: a READ_ONLY member sees a locked value masked.
    const reader = as(readOnlyKey, owner.accountId);
    expect((await reader.get(`/v1/check-groups/${id}`)).body.environmentVariables[0].value).toBe('********');
    expect((await reader.post('/v1/check-groups', sdkGroup())).status).toBe(403);
    // Another account's group is unknown.
    expect((await as(stranger.ownerKey, stranger.accountId).get(`/v1/check-groups/${id}`)).status).toBe(404);

    expect((await sdk.delete(`/v1/check-groups/${id}`)).status).toBe(204);
    expect((await owner.owner.get(`/v1/check-groups/${vigilGroup.id}`)).status).toBe(404);
    expect((await sdk.get(`/v1/check-groups/${id}`)).status).toBe(404);
  });

  it('settings a Vigil group cannot hold are named in one 400', async () => {
    const refused = await as(owner.ownerKey, owner.accountId).post(
      '/v1/check-groups',
      sdkGroup({
        locations: ['eu-west-1'],
        concurrency: 3,
        apiCheckDefaults: { url: 'https://api.example.com' },
        muted: true,
      }),
    );
    expect(refused.status).toBe(400);
    for (const field of ['locations', 'concurrency', 'apiCheckDefaults.url', 'muted'])
      expect(refused.body.message).toContain(field);
  });
});
