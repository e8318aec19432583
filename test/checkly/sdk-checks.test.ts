import { describe, expect, it } from 'vitest';
import { numericId } from '../../apps/api/src/checkly/ids.ts';
import { dialectSuite } from './support.ts';

/**
 * Check writes as Checkly's Go SDK (github.com/checkly/checkly-go-sdk, types.go and checkly.go at
 * be7d3f0; the Go proxy here serves no version of it to run) sends them: encoding/json of its Check
 * type through createCheckPayload, so every zero value is on the wire (groupId null when 0,
 * locations and privateLocations [] when nil, heartbeat all zero on an API check, alertSettings'
 * empty sub-objects, the zero time), and ?autoAssignAlerts=false on the path.
 */

const suite = dialectSuite();

const zeroTime = '0001-01-01T00:00:00Z';
/** What the SDK marshals for an API check built as the Terraform provider builds one. */
function sdkApiCheck(overrides: Record<string, unknown> = {}) {
  return {
    id: '',
    name: 'Orders API',
    description: null,
    checkType: 'API',
    frequency: 5,
    activated: true,
    muted: false,
    shouldFail: false,
    runParallel: false,
    locations: ['eu-west-1'],
    degradedResponseTime: 3000,
    maxResponseTime: 10000,
    environmentVariables: null,
    tags: ['orders'],
    sslCheckDomain: '',
    alertSettings: {
      escalationType: 'RUN_BASED',
      runBasedEscalation: { failedRunThreshold: 2 },
      timeBasedEscalation: {},
      reminders: { amount: 1, interval: 10 },
      parallelRunFailureThreshold: {},
      sslCertificates: {},
    },
    useGlobalAlertSettings: false,
    request: {
      method: 'POST',
      url: 'https://api.example.com/orders',
      followRedirects: true,
      skipSSL: false,
      body: '{"probe":true}',
      bodyType: 'JSON',
      headers: [{ key: 'X-Probe', value: '1', locked: false }],
      queryParameters: [],
      assertions: [
        {
          edit: false,
          order: 0,
          arrayIndex: 0,
          arraySelector: 0,
          source: 'STATUS_CODE',
          property: '',
          comparison: 'EQUALS',
          target: '200',
        },
      ],
    },
    heartbeat: { period: 0, periodUnit: '', grace: 0, graceUnit: '', pingToken: '' },
    createdAt: zeroTime,
    updatedAt: zeroTime,
    privateLocations: [],
    runtimeId: null,
    retryStrategy: { type: 'LINEAR', baseBackoffSeconds: 30, maxRetries: 2, maxDurationSeconds: 300, sameRegion: true },
    triggerIncident: null,
    sslCheck: false,
    doubleCheck: false,
    groupId: null,
    ...overrides,
  };
}

const sdk = () => suite.sdk();

describe('check writes in the SDK shape', () => {
  it('POST /v1/checks/api creates the check Vigil shows on /v1, with everything the SDK set', async () => {
    const created = await sdk().post('/v1/checks/api?autoAssignAlerts=false', sdkApiCheck());
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ name: 'Orders API', checkType: 'API', groupId: null });
    const stored = (await suite.owner.owner.get(`/v1/checks/${created.body.id}`)).body;
    expect(stored).toMatchObject({
      name: 'Orders API',
      frequency: 5,
      locations: ['eu-west-1'],
      tags: ['orders'],
      degradedResponseTime: 3000,
      maxResponseTime: 10000,
      sslCheckDomain: null,
      alertSettings: {
        escalationType: 'RUN_BASED',
        runBasedEscalation: { failedRunThreshold: 2 },
        reminders: { amount: 1, interval: 10 },
      },
      retryStrategy: { type: 'LINEAR', maxRetries: 2, baseBackoffSeconds: 30, maxDurationSeconds: 300 },
      request: {
        method: 'POST',
        url: 'https://api.example.com/orders',
        body: '{"probe":true}',
        bodyType: 'JSON',
        headers: [{ key: 'X-Probe', value: '1' }],
        assertions: [{ source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '200' }],
      },
    });
  });

  it('a second PUT of the same body changes nothing Vigil keeps (a Terraform re-apply shows no diff)', async () => {
    const created = await sdk().post('/v1/checks/api?autoAssignAlerts=false', sdkApiCheck({ name: 'Stable' }));
    const id = created.body.id as string;
    const before = (await suite.owner.owner.get(`/v1/checks/${id}`)).body;
    const put = await sdk().put(`/v1/checks/api/${id}?autoAssignAlerts=false`, sdkApiCheck({ name: 'Stable', id }));
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await suite.owner.owner.get(`/v1/checks/${id}`)).body).toEqual(before);
    // The generic PUT /v1/checks/{id} (UpdateCheck in the SDK) does the same.
    const generic = await sdk().put(`/v1/checks/${id}?autoAssignAlerts=false`, sdkApiCheck({ name: 'Stable', id }));
    expect(generic.status, JSON.stringify(generic.body)).toBe(200);
    expect((await suite.owner.owner.get(`/v1/checks/${id}`)).body).toEqual(before);
  });

  it('a numeric groupId names the Vigil group; an unknown one is a 400 naming groupId', async () => {
    const group = (await suite.owner.owner.post('/v1/check-groups', { name: 'Payments' })).body;
    const created = await sdk().post('/v1/checks/api', sdkApiCheck({ groupId: numericId(group.id) }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.groupId).toBe(numericId(group.id));
    expect((await suite.owner.owner.get(`/v1/checks/${created.body.id}`)).body.groupId).toBe(group.id);
    const unknown = await sdk().post('/v1/checks/api', sdkApiCheck({ groupId: 424242 }));
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('groupId');
    // Another account's group is unknown here.
    const foreign = (await suite.stranger.owner.post('/v1/check-groups', { name: 'Theirs' })).body;
    expect((await sdk().post('/v1/checks/api', sdkApiCheck({ groupId: numericId(foreign.id) }))).status).toBe(400);
  });

  it('every field Vigil cannot honour is named in one 400, and nothing is created', async () => {
    const before = (await suite.owner.owner.get('/v1/checks?limit=100')).body.length;
    const refused = await sdk().post(
      '/v1/checks/api',
      sdkApiCheck({
        description: 'Orders',
        runParallel: true,
        retryStrategy: { type: 'SINGLE_RETRY' },
        request: {
          ...sdkApiCheck().request,
          assertions: [{ ...sdkApiCheck().request.assertions[0], order: 3 }],
          headers: [{ key: 'X', value: '1', locked: true }],
        },
      }),
    );
    expect(refused.status).toBe(400);
    for (const field of [
      'description',
      'runParallel',
      'retryStrategy.type',
      'request.assertions[0].order',
      'request.headers[0].locked',
    ])
      expect(refused.body.message).toContain(field);
    expect((await suite.owner.owner.get('/v1/checks?limit=100')).body.length).toBe(before);
    const unknownField = await sdk().post('/v1/checks/api', { ...sdkApiCheck(), frobnicate: 1 });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.message).toContain('frobnicate');
  });

  it('NO_RETRIES and null mean no retries; useGlobalAlertSettings means the account settings', async () => {
    for (const retryStrategy of [null, { type: 'NO_RETRIES' }]) {
      const created = await sdk().post('/v1/checks/api', sdkApiCheck({ retryStrategy, useGlobalAlertSettings: true }));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.retryStrategy ?? null).toBeNull();
      expect(created.body.useGlobalAlertSettings).toBe(true);
      expect((await suite.owner.owner.get(`/v1/checks/${created.body.id}`)).body.alertSettings).toBeNull();
    }
  });

  it('heartbeat, TCP and URL checks by their paths, and the generic POST /v1/checks', async () => {
    const heartbeat = await sdk().post(
      '/v1/checks/heartbeat?autoAssignAlerts=false',
      sdkApiCheck({
        name: 'Nightly job',
        checkType: 'HEARTBEAT',
        request: { method: '', url: '', headers: null, queryParameters: null, assertions: null },
        heartbeat: { period: 1, periodUnit: 'days', grace: 30, graceUnit: 'minutes', pingToken: '' },
        retryStrategy: null,
        locations: [],
      }),
    );
    expect(heartbeat.status, JSON.stringify(heartbeat.body)).toBe(201);
    expect(heartbeat.body.heartbeat).toMatchObject({ period: 1, periodUnit: 'days', grace: 30 });
    expect(heartbeat.body.heartbeat.pingUrl).toContain('/ping/');

    const tcp = await sdk().post(
      '/v1/checks/tcp?autoAssignAlerts=false',
      sdkApiCheck({
        name: 'Database',
        checkType: 'TCP',
        request: { hostname: 'db.example.com', port: 5432, assertions: [] },
      }),
    );
    expect(tcp.status, JSON.stringify(tcp.body)).toBe(201);
    expect(tcp.body.request).toMatchObject({ hostname: 'db.example.com', port: 5432 });

    const url = await sdk().post(
      '/v1/checks',
      sdkApiCheck({
        name: 'Homepage',
        checkType: 'URL',
        request: { url: 'https://www.example.com/', followRedirects: true, skipSSL: false, assertions: [] },
      }),
    );
    expect(url.status, JSON.stringify(url.body)).toBe(201);
    expect((await suite.owner.owner.get(`/v1/checks/${url.body.id}`)).body).toMatchObject({
      checkType: 'URL',
      request: { url: 'https://www.example.com/' },
    });
    // The type cannot change on PUT.
    const change = await sdk().put(`/v1/checks/api/${url.body.id}`, sdkApiCheck());
    expect(change.status).toBe(400);
    expect(change.body.message).toContain('checkType');
  });

  it('alertChannelSubscriptions subscribe the check on the channels (read back on both sides); [] unsubscribes', async () => {
    const channel = await suite.owner.owner.post('/v1/alert-channels', {
      type: 'EMAIL',
      config: { name: 'On call', address: 'oncall@example.com' },
    });
    expect(channel.status, JSON.stringify(channel.body)).toBe(201);
    const channelId = channel.body.id as string;
    const subscriptions = [{ alertChannelId: numericId(channelId), activated: true }];
    const created = await sdk().post(
      '/v1/checks/api',
      sdkApiCheck({ name: 'Subscribed', alertChannelSubscriptions: subscriptions }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const checkId = created.body.id as string;
    expect(created.body.alertChannelSubscriptions).toEqual(subscriptions);
    expect((await suite.owner.owner.get(`/v1/alert-channels/${channelId}`)).body.subscriptions).toEqual([
      { checkId, groupId: null, activated: true },
    ]);
    expect((await sdk().get(`/v1/checks/${checkId}`)).body.alertChannelSubscriptions).toEqual(subscriptions);

    // The SDK leaves an empty list out (omitempty): the check then follows no channel.
    const body = sdkApiCheck({ name: 'Subscribed', id: checkId });
    const put = await sdk().put(`/v1/checks/api/${checkId}`, body);
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await sdk().get(`/v1/checks/${checkId}`)).body.alertChannelSubscriptions).toEqual([]);
    expect((await suite.owner.owner.get(`/v1/alert-channels/${channelId}`)).body.subscriptions).toEqual([
      { checkId, groupId: null, activated: false },
    ]);

    const before = (await suite.owner.owner.get('/v1/checks?limit=100')).body.length;
    const unknown = await sdk().post(
      '/v1/checks/api',
      sdkApiCheck({ alertChannelSubscriptions: [{ alertChannelId: 77, activated: true }] }),
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('alertChannelSubscriptions[0].alertChannelId');
    const inactive = await sdk().post(
      '/v1/checks/api',
      sdkApiCheck({ alertChannelSubscriptions: [{ ...subscriptions[0], activated: false }] }),
    );
    expect(inactive.status).toBe(400);
    expect(inactive.body.message).toContain('alertChannelSubscriptions[0].activated');
    expect((await suite.owner.owner.get('/v1/checks?limit=100')).body.length).toBe(before);
  });

  it("another account's check answers 404 to a PUT", async () => {
    const theirs = (await suite.stranger.owner.post('/v1/checks', { name: 'Theirs', checkType: 'API' })).body;
    expect((await sdk().put(`/v1/checks/api/${theirs.id}`, sdkApiCheck())).status).toBe(404);
    expect((await sdk().get(`/v1/checks/${theirs.id}`)).status).toBe(404);
  });
});
