import { describe, expect, it } from 'vitest';
import { numericId } from '../../apps/api/src/checkly/ids.ts';
import { dialectSuite } from './support.ts';

/**
 * Alert channels as the Go SDK (checkly.go at be7d3f0, payloadFromAlertChannel) writes them:
 * {id, type, config, send…} on POST /v1/alert-channels and PUT|DELETE /v1/alert-channels/{id}.
 */
const OPSGENIE_KEY = '0e2b3c4d-5f60-4a7b-8c9d-0e1f2a3b4c5d';

const suite = dialectSuite();

describe('alert channels in the SDK shape', () => {
  it('an EMAIL channel: create, update, delete by numeric id, read back through /v1', async () => {
    const sdk = suite.as(suite.owner.ownerKey, suite.owner.accountId);
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
    const vigilId = ((await suite.owner.owner.get('/v1/alert-channels')).body as Array<{ id: string }>)[0]!.id;
    expect(numericId(vigilId)).toBe(id);
    expect((await suite.owner.owner.get(`/v1/alert-channels/${vigilId}`)).body).toMatchObject({
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
    expect((await suite.owner.owner.get(`/v1/alert-channels/${vigilId}`)).body).toMatchObject({
      config: { address: 'ops@example.com' },
      sendDegraded: true,
    });
    expect(
      (await suite.as(suite.stranger.ownerKey, suite.stranger.accountId).get(`/v1/alert-channels/${id}`)).status,
    ).toBe(404);
    expect((await sdk.delete(`/v1/alert-channels/${id}`)).status).toBe(204);
    expect((await suite.owner.owner.get(`/v1/alert-channels/${vigilId}`)).status).toBe(404);
  });

  it('an OPSGENIE key is sealed: the answer and /v1 show it masked', async () => {
    const created = await suite.as(suite.owner.ownerKey, suite.owner.accountId).post('/v1/alert-channels', {
      id: 0,
      type: 'OPSGENIE',
      config: { name: 'Genie', apiKey: OPSGENIE_KEY, region: 'EU', priority: 'P2' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain(OPSGENIE_KEY);
    expect(created.body.config).toMatchObject({ name: 'Genie', region: 'EU', priority: 'P2', apiKey: '********' });
  });

  it('types and fields Vigil cannot honour are a 400 naming them', async () => {
    const sdk = suite.as(suite.owner.ownerKey, suite.owner.accountId);
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

  it('a Teams webhook (webhookType WEBHOOK_MSTEAMS, method POST, as the SDK sends it) reads back as sent', async () => {
    const sdk = suite.sdk();
    const body = {
      id: 0,
      type: 'WEBHOOK',
      config: {
        name: 'Teams',
        url: 'https://example.webhook.office.com/x',
        webhookType: 'WEBHOOK_MSTEAMS',
        method: 'POST',
      },
      sendRecovery: true,
      sendFailure: true,
    };
    const created = await sdk.post('/v1/alert-channels', body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ type: 'WEBHOOK', config: body.config });
    expect((await sdk.get(`/v1/alert-channels/${created.body.id}`)).body).toMatchObject({
      type: 'WEBHOOK',
      config: body.config,
    });
    const vigilId = (
      (await suite.owner.owner.get('/v1/alert-channels')).body as Array<{ id: string; type: string }>
    ).find((channel) => channel.type === 'MSTEAMS')!.id;
    expect(numericId(vigilId)).toBe(created.body.id);
    const put = await sdk.put(`/v1/alert-channels/${created.body.id}`, {
      ...body,
      config: { ...body.config, method: 'GET' },
    });
    expect(put.status).toBe(400);
    expect(put.body.message).toContain('config.method');
  });
});
