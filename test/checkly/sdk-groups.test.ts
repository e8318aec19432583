import { describe, expect, it } from 'vitest';
import { numericId } from '../../apps/api/src/checkly/ids.ts';
import { dialectSuite } from './support.ts';

/**
 * Check groups as the Go SDK (types.go at be7d3f0) writes them: its Group type marshalled whole,
 * zero values included, on POST /v1/check-groups and PUT|DELETE /v1/check-groups/{numeric id}.
 */
let readOnlyKey: string;

const suite = dialectSuite(async ({ owner }) => {
  readOnlyKey = (await owner.owner.post('/v1/users', { email: `ro-${Date.now()}@example.com`, role: 'READ_ONLY' })).body
    .apiKey.key;
});

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

describe('check groups in the SDK shape', () => {
  it('create, read, update and delete by numeric id, read back through /v1', async () => {
    const sdk = suite.as(suite.owner.ownerKey, suite.owner.accountId);
    const created = await sdk.post('/v1/check-groups?autoAssignAlerts=false', sdkGroup());
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as number;
    expect(Number.isSafeInteger(id)).toBe(true);
    const vigilGroup = (
      (await suite.owner.owner.get('/v1/check-groups')).body as Array<{ id: string; name: string }>
    ).find((group) => group.name === 'Payments')!;
    expect(numericId(vigilGroup.id)).toBe(id);
    expect((await sdk.get(`/v1/check-groups/${id}`)).body).toMatchObject({ id, name: 'Payments', tags: ['pay'] });

    const put = await sdk.put(`/v1/check-groups/${id}?autoAssignAlerts=false`, sdkGroup({ name: 'Payments EU', id }));
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await suite.owner.owner.get(`/v1/check-groups/${vigilGroup.id}`)).body).toMatchObject({
      name: 'Payments EU',
    });

    // Same role rules as /v1, and the one masking rule: a READ_ONLY member sees a locked value masked.
    const reader = suite.as(readOnlyKey, suite.owner.accountId);
    expect((await reader.get(`/v1/check-groups/${id}`)).body.environmentVariables[0].value).toBe('********');
    expect((await reader.post('/v1/check-groups', sdkGroup())).status).toBe(403);
    // Another account's group is unknown.
    expect(
      (await suite.as(suite.stranger.ownerKey, suite.stranger.accountId).get(`/v1/check-groups/${id}`)).status,
    ).toBe(404);

    expect((await sdk.delete(`/v1/check-groups/${id}`)).status).toBe(204);
    expect((await suite.owner.owner.get(`/v1/check-groups/${vigilGroup.id}`)).status).toBe(404);
    expect((await sdk.get(`/v1/check-groups/${id}`)).status).toBe(404);
  });

  it('settings a Vigil group cannot hold are named in one 400', async () => {
    const refused = await suite.as(suite.owner.ownerKey, suite.owner.accountId).post(
      '/v1/check-groups',
      sdkGroup({
        concurrency: 3,
        apiCheckDefaults: { url: 'https://api.example.com' },
        muted: true,
      }),
    );
    expect(refused.status).toBe(400);
    for (const field of ['concurrency', 'apiCheckDefaults.url', 'muted']) expect(refused.body.message).toContain(field);
  });

  it('locations and privateLocations are the group’s locations in Vigil, read back apart', async () => {
    const sdk = suite.sdk();
    const slug = `office-${Date.now()}`;
    expect((await sdk.post('/v1/private-locations', { name: 'Office', slugName: slug })).status).toBe(201);
    const created = await sdk.post(
      '/v1/check-groups',
      sdkGroup({ name: 'Located', locations: ['eu-west-1'], privateLocations: [slug] }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ locations: ['eu-west-1'], privateLocations: [slug] });
    expect((await sdk.get(`/v1/check-groups/${created.body.id}`)).body).toMatchObject({
      locations: ['eu-west-1'],
      privateLocations: [slug],
    });
    const vigilGroup = ((await suite.owner.owner.get('/v1/check-groups')).body as Array<{ name: string }>).find(
      (group) => group.name === 'Located',
    );
    expect(vigilGroup).toMatchObject({ locations: ['eu-west-1', slug] });
    const unknown = await sdk.post('/v1/check-groups', sdkGroup({ name: 'Nowhere', privateLocations: ['no-such'] }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('no-such');
  });
});

describe('GroupV2 and group subscriptions (found by running the real SDK, go-sdk.test.ts)', () => {
  it('/v2/check-groups serves the same groups; another account’s id is a 404 on each route', async () => {
    const sdk = suite.sdk();
    const v2 = {
      ...sdkGroup({ name: 'Search' }),
      runParallel: false,
      useGlobalAlertSettings: true,
      alertSettings: null,
    };
    const created = await sdk.post('/v2/check-groups?autoAssignAlerts=false', v2);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as number;
    expect(created.body).toMatchObject({
      name: 'Search',
      concurrency: 1,
      useGlobalAlertSettings: true,
      runParallel: false,
    });
    expect((await sdk.get(`/v1/check-groups/${id}`)).body.name).toBe('Search');
    expect((await sdk.put(`/v2/check-groups/${id}`, { ...v2, name: 'Search EU' })).body.name).toBe('Search EU');
    expect((await sdk.get(`/v2/check-groups/${id}`)).body.name).toBe('Search EU');
    const theirs = suite.as(suite.stranger.ownerKey, suite.stranger.accountId);
    expect((await theirs.get(`/v2/check-groups/${id}`)).status).toBe(404);
    expect((await theirs.put(`/v2/check-groups/${id}`, v2)).status).toBe(404);
    expect((await theirs.delete(`/v2/check-groups/${id}`)).status).toBe(404);
    expect((await sdk.delete(`/v2/check-groups/${id}`)).status).toBe(204);
    expect((await sdk.get(`/v1/check-groups/${id}`)).status).toBe(404);
  });

  it('a group’s alertChannelSubscriptions are kept on the channel and read back; [] unsubscribes', async () => {
    const sdk = suite.sdk();
    const channel = (
      await suite.owner.owner.post('/v1/alert-channels', {
        type: 'EMAIL',
        config: { name: 'Ops', address: 'ops@example.com' },
      })
    ).body as { id: string };
    const subscriptions = [{ alertChannelId: numericId(channel.id), activated: true }];
    const created = await sdk.post(
      '/v1/check-groups',
      sdkGroup({ name: 'Subscribed', alertChannelSubscriptions: subscriptions }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.alertChannelSubscriptions).toEqual(subscriptions);
    const groupId = (
      (await suite.owner.owner.get('/v1/check-groups')).body as Array<{ id: string; name: string }>
    ).find((group) => group.name === 'Subscribed')!.id;
    expect((await suite.owner.owner.get(`/v1/alert-channels/${channel.id}`)).body.subscriptions).toEqual([
      { checkId: null, groupId, activated: true },
    ]);
    expect((await sdk.get(`/v1/check-groups/${created.body.id}`)).body.alertChannelSubscriptions).toEqual(
      subscriptions,
    );
    const cleared = await sdk.put(`/v1/check-groups/${created.body.id}`, sdkGroup({ name: 'Subscribed' }));
    expect(cleared.body.alertChannelSubscriptions).toEqual([]);
    expect((await suite.owner.owner.get(`/v1/alert-channels/${channel.id}`)).body.subscriptions).toEqual([
      { checkId: null, groupId, activated: false },
    ]);
    // Another account's channel is unknown here, and activated: false is refused (it would not read back).
    const theirs = (
      await suite.stranger.owner.post('/v1/alert-channels', {
        type: 'EMAIL',
        config: { name: 'Theirs', address: 'theirs@example.com' },
      })
    ).body as { id: string };
    const foreign = await sdk.post(
      '/v1/check-groups',
      sdkGroup({
        name: 'Foreign',
        alertChannelSubscriptions: [{ alertChannelId: numericId(theirs.id), activated: true }],
      }),
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toContain('alertChannelSubscriptions[0].alertChannelId');
    const inactive = await sdk.post(
      '/v1/check-groups',
      sdkGroup({ name: 'Inactive', alertChannelSubscriptions: [{ ...subscriptions[0], activated: false }] }),
    );
    expect(inactive.status).toBe(400);
    expect(inactive.body.message).toContain('alertChannelSubscriptions[0].activated');
    const names = ((await suite.owner.owner.get('/v1/check-groups')).body as Array<{ name: string }>).map(
      (g) => g.name,
    );
    expect(names).not.toContain('Foreign');
    expect(names).not.toContain('Inactive');
  });
});
