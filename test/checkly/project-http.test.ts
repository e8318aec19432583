import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

/**
 * The project routes at the HTTP level, in the body the CLI sends (gzip JSON, as captured from
 * checkly 9.5.0): roles, tenant isolation and the answer shapes; project.test.ts drives the CLI.
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

const project = {
  project: { logicalId: 'shop', name: 'Shop' },
  sharedFiles: [],
  repoInfo: null,
  resources: [
    {
      logicalId: 'db-tcp',
      type: 'check',
      member: true,
      payload: {
        name: 'DB',
        locations: ['eu-west-1'],
        frequency: 10,
        groupId: null,
        doubleCheck: false,
        useGlobalAlertSettings: true,
        runParallel: false,
        checkType: 'TCP',
        request: { hostname: 'db.example.com', port: 5432 },
      },
    },
  ],
};

async function call(method: string, path: string, key: string, accountId: string, body?: unknown) {
  const response = await fetch(`${vigil.url}/checkly${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      'x-checkly-account': accountId,
      ...(body ? { 'content-type': 'application/json', 'content-encoding': 'gzip' } : {}),
    },
    body: body ? gzipSync(JSON.stringify(body)) : undefined,
  });
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) };
}

describe('Checkly project routes', () => {
  it('a dry run answers the diff and writes nothing; a deploy answers a deployment the CLI follows', async () => {
    const dry = await call(
      'POST',
      '/v1/projects/deploy?dryRun=true&scheduleOnDeploy=true',
      owner.ownerKey,
      owner.accountId,
      project,
    );
    expect(dry.status).toBe(200);
    expect(dry.json()).toEqual({ diff: [{ type: 'check', logicalId: 'db-tcp', physicalId: null, action: 'CREATE' }] });
    expect((await owner.owner.get('/v1/checks')).body).toEqual([]);

    const deployed = await call(
      'POST',
      '/v1/projects/deploy?dryRun=false&scheduleOnDeploy=true',
      owner.ownerKey,
      owner.accountId,
      project,
    );
    expect(deployed.status).toBe(202);
    const { id, status } = deployed.json();
    expect(status).toBe('SUCCEEDED');
    const events = await call('GET', `/v1/projects/shop/deployments/${id}/events`, owner.ownerKey, owner.accountId);
    expect(events.text).toContain('event: complete\ndata: ');
    const [check] = (await owner.owner.get('/v1/checks')).body as Array<{ id: string }>;
    expect(events.text).toContain(`"physicalId":"${check!.id}"`);
    const completion = await call(
      'GET',
      `/v1/projects/shop/deployments/${id}/completion?maxWaitSeconds=30`,
      owner.ownerKey,
      owner.accountId,
    );
    expect(completion.json()).toMatchObject({ id, status: 'SUCCEEDED' });

    // Another account sees neither the deployment nor the project's checks, and its destroy touches nothing here.
    expect(
      (await call('GET', `/v1/projects/shop/deployments/${id}`, stranger.ownerKey, stranger.accountId)).status,
    ).toBe(404);
    const foreign = await call(
      'DELETE',
      '/v1/projects/shop?preserveResources=false&dryRun=false',
      stranger.ownerKey,
      stranger.accountId,
    );
    expect(foreign.json()).toEqual({ diff: [] });
    expect(((await owner.owner.get('/v1/checks')).body as unknown[]).length).toBe(1);
  });

  it('a READ_ONLY key cannot deploy or destroy', async () => {
    const deploy = await call(
      'POST',
      '/v1/projects/deploy?dryRun=false&scheduleOnDeploy=true',
      readOnlyKey,
      owner.accountId,
      project,
    );
    expect(deploy.status).toBe(403);
    expect((await call('DELETE', '/v1/projects/shop?dryRun=false', readOnlyKey, owner.accountId)).status).toBe(403);
  });

  it('refuses what it would otherwise drop in silence, naming it', async () => {
    const noSchedule = await call(
      'POST',
      '/v1/projects/deploy?dryRun=false&scheduleOnDeploy=false',
      owner.ownerKey,
      owner.accountId,
      project,
    );
    expect(noSchedule.status).toBe(400);
    expect(noSchedule.json().message).toContain('scheduleOnDeploy');
    const bad = {
      ...project,
      resources: [{ ...project.resources[0]!, payload: { ...project.resources[0]!.payload, description: 'x' } }],
    };
    const refused = await call('POST', '/v1/projects/deploy?dryRun=true', owner.ownerKey, owner.accountId, bad);
    expect(refused.status).toBe(400);
    expect(refused.json().message).toContain('check "db-tcp": description');
    const slashed = { ...project, project: { logicalId: 'shop/eu', name: 'Shop' } };
    const badId = await call('POST', '/v1/projects/deploy?dryRun=true', owner.ownerKey, owner.accountId, slashed);
    expect(badId.status).toBe(400);
    expect(badId.json().message).toContain('project.logicalId');
  });

  it('a DNS monitor deploys with its query, and a field a DNS check cannot have is named', async () => {
    const dns = {
      name: 'Resolver',
      checkType: 'DNS',
      groupId: null,
      request: {
        recordType: 'AAAA',
        query: 'example.com',
        nameServer: '1.1.1.1',
        port: 53,
        protocol: 'TCP',
        assertions: [{ source: 'RESPONSE_CODE', property: '', comparison: 'EQUALS', target: 'NOERROR' }],
      },
    };
    const body = {
      project: { logicalId: 'dns', name: 'DNS' },
      resources: [{ logicalId: 'resolver', type: 'check', payload: dns }],
    };
    const deployed = await call('POST', '/v1/projects/deploy?dryRun=false', owner.ownerKey, owner.accountId, body);
    expect(deployed.status).toBe(202);
    const checks = (await owner.owner.get('/v1/checks')).body as Array<{ name: string; request?: unknown }>;
    expect(checks.find((check) => check.name === 'Resolver')?.request).toEqual({
      ...dns.request,
      assertions: [{ source: 'RESPONSE_CODE', property: '', comparison: 'EQUALS', target: 'NOERROR' }],
    });
    const withUrl = { ...dns, request: { ...dns.request, url: 'https://example.com' } };
    const refused = await call('POST', '/v1/projects/deploy?dryRun=true', owner.ownerKey, owner.accountId, {
      ...body,
      resources: [{ logicalId: 'resolver', type: 'check', payload: withUrl }],
    });
    expect(refused.status).toBe(400);
    expect(refused.json().message).toContain('check "resolver": request.url: a DNS check sends a query');
    expect((await call('DELETE', '/v1/projects/dns?dryRun=false', owner.ownerKey, owner.accountId)).status).toBe(202);
  });
});
