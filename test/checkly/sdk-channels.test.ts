import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, createAccount, startVigil, type TestVigil } from '#test-vigil';
import { numericId } from '../../apps/api/src/checkly/ids.ts';

/**
 * Alert channels as the Go SDK (checkly.go at be7d3f0, payloadFromAlertChannel) writes them:
 * {id, type, config, send…} on POST /v1/alert-channels and PUT|DELETE /v1/alert-channels/{id}.
 */
let vigil: TestVigil;
let owner: Awaited<ReturnType<typeof createAccount>>;
let stranger: Awaited<ReturnType<typeof createAccount>>;
const OPSGENIE_KEY = '0e2b3c4d-5f60-4a7b-8c9d-0e1f2a3b4c5d';

beforeAll(async () => {
  vigil = await startVigil();
  owner = await createAccount(vigil, 'team');
  stranger = await createAccount(vigil, 'team');
});
afterAll(async () => vigil?.stop());

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

describe('alert channels in the SDK shape', () => {
  it('an EMAIL channel: create, update, delete by numeric id, read back through /v1', async () => {
    const sdk = as(owner.ownerKey, owner.accountId);
    const created = await sdk.post('/v1/alert-channels', {
      id: 0,
      type: 'EMAIL',
      config: { address: 'oncall@example.com' },
      sendRecovery: true,
      sendFailure: true,
      sendDegraded: false,
      sslExpiry: true,
      sslExpiryThreshold: 14,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as number;
    const vigilId = ((await owner.owner.get('/v1/alert-channels')).body as Array<{ id: string }>)[0]!.id;
    expect(numericId(vigilId)).toBe(id);
    expect((await owner.owner.get(`/v1/alert-channels/${vigilId}`)).body).toMatchObject({
      type: 'EMAIL',
      config: { address: 'oncall@example.com' },
      sslExpiry: true,
      sslExpiryThreshold: 14,
    });
    const put = await sdk.put(`/v1/alert-channels/${id}`, {
      id,
      type: 'EMAIL',
      config: { address: 'ops@example.com' },
      sendDegraded: true,
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await owner.owner.get(`/v1/alert-channels/${vigilId}`)).body).toMatchObject({
      config: { address: 'ops@example.com' },
      sendDegraded: true,
    });
    expect((await as(stranger.ownerKey, stranger.accountId).get(`/v1/alert-channels/${id}`)).status).toBe(404);
    expect((await sdk.delete(`/v1/alert-channels/${id}`)).status).toBe(204);
    expect((await owner.owner.get(`/v1/alert-channels/${vigilId}`)).status).toBe(404);
  });

  it('an OPSGENIE key is sealed: the answer and /v1 show it masked', async () => {
    const created = await as(owner.ownerKey, owner.accountId).post('/v1/alert-channels', {
      id: 0,
      type: 'OPSGENIE',
      config: { name: 'Genie', apiKey: OPSGENIE_KEY, region: 'EU', priority: 'P2' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain(OPSGENIE_KEY);
    expect(created.body.config).toMatchObject({ name: 'Genie', region: 'EU', priority: 'P2', apiKey: '********' });
  });

  it('types and fields Vigil cannot honour are a 400 naming them', async () => {
    const sdk = as(owner.ownerKey, owner.accountId);
    const sms = await sdk.post('/v1/alert-channels', { id: 0, type: 'SMS', config: { name: 'x' } });
    expect(sms.status).toBe(400);
    expect(sms.body.message).toContain('SMS');
    const pd = await sdk.post('/v1/alert-channels', {
      id: 0,
      type: 'PAGERDUTY',
      config: { account: 'acme', serviceKey: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', serviceName: 'API' },
    });
    expect(pd.status).toBe(400);
    expect(pd.body.message).toContain('config.account');
  });
});
