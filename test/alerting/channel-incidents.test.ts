import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigil, type TestVigil } from '#test-vigil';
import { eventually } from '#test-processes';
import { at, channelSetup, json } from './channel-setup.ts';
import { startReceiver, type Receiver } from './receiver.ts';

// Issue 22: PagerDuty and Opsgenie through the real dispatcher, against local receivers that check
// each service's documented request shape. A failure opens one incident, a reminder does not open a
// second one (same dedup_key / alias), and the recovery resolves / closes it.
const routingKey = 'R0123456789abcdefABCDEF012345678';
const genieKey = '0e2b3c4d-5f60-4a7b-8c9d-0e1f2a3b4c5d';
const reminders = {
  escalationType: 'RUN_BASED',
  runBasedEscalation: { failedRunThreshold: 1 },
  reminders: { amount: 1, interval: 1 },
};

describe('PagerDuty and Opsgenie channels end to end', () => {
  let vigil: TestVigil;
  let pagerDuty: Receiver;
  let opsgenie: Receiver;
  beforeAll(async () => {
    pagerDuty = await startReceiver(() => 202);
    opsgenie = await startReceiver(() => 202);
    vigil = await startVigil({
      env: {
        VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
        VIGIL_WEBHOOK_RETRY_DELAY_MS: '600',
        VIGIL_PAGERDUTY_EVENTS_URL: `${pagerDuty.url}/v2/enqueue`,
        VIGIL_OPSGENIE_API_URL: opsgenie.url,
      },
    });
  }, 60_000);
  afterAll(async () => {
    await vigil?.stop();
    await pagerDuty?.close();
    await opsgenie?.close();
  });

  it('PAGERDUTY: trigger, a reminder under the same dedup_key, then resolve', async () => {
    const { check, channel, send, account } = await channelSetup(
      vigil,
      { type: 'PAGERDUTY', config: { name: 'pd', serviceKey: routingKey, serviceName: 'Checkout' } },
      reminders,
    );
    expect(channel.config.serviceKey).toBe('********');
    const mine = () => pagerDuty.received.filter((r) => r.body.includes(check.id));
    await send(0, false);
    await send(1, true);
    await send(2, true);
    await send(3, true);
    const triggers = await eventually(
      async () => mine(),
      (list) => list.length >= 2,
      20_000,
    );
    await send(4, false);
    const all = await eventually(
      async () => mine(),
      (list) => list.some((r) => json(r.body).event_action === 'resolve'),
      20_000,
    );
    expect(all.map((r) => json(r.body).event_action)).toEqual(['trigger', 'trigger', 'resolve']);
    const dedupKey = `vigil-${check.id}`;
    for (const request of all) {
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/v2/enqueue');
      expect(request.headers['content-type']).toBe('application/json');
      expect(json(request.body)).toMatchObject({ routing_key: routingKey, dedup_key: dedupKey });
    }
    expect(json(triggers[0]!.body)).toEqual({
      routing_key: routingKey,
      event_action: 'trigger',
      dedup_key: dedupKey,
      payload: {
        summary: 'Check "Checkout API" is failing: expected 200, got 503',
        source: 'eu-west-1',
        severity: 'critical',
        timestamp: at(1),
        component: 'Checkout API',
        class: 'failure',
        custom_details: expect.objectContaining({ Check: 'Checkout API', Location: 'eu-west-1', 'Status code': '503' }),
      },
      client: 'Vigil (Checkout)',
      client_url: expect.stringMatching(new RegExp(`/checks/${check.id}/results/`)),
      links: [{ href: expect.stringMatching(/\/checks\//), text: 'View result in Vigil' }],
    });
    expect(json(triggers[1]!.body).payload.summary).toMatch(/^Reminder 1: check "Checkout API" is still failing/);
    expect(json(all[2]!.body)).toEqual({ routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey });

    // The delivery log never shows the routing key.
    const log = await account.owner.get(`/v1/alert-channels/${channel.id}/deliveries`);
    expect(log.body).toHaveLength(3);
    expect(JSON.stringify(log.body)).not.toContain(routingKey);
  }, 60_000);

  it('OPSGENIE: create with GenieKey auth, a reminder under the same alias, then close by alias', async () => {
    const { check, channel, send } = await channelSetup(
      vigil,
      { type: 'OPSGENIE', config: { name: 'og', apiKey: genieKey, region: 'EU', priority: 'P2' } },
      reminders,
    );
    expect(channel.config).toMatchObject({ apiKey: '********', region: 'EU', priority: 'P2' });
    const alias = `vigil-${check.id}`;
    const mine = () => opsgenie.received.filter((r) => r.body.includes(check.id) || r.url.includes(check.id));
    await send(0, false);
    await send(1, true);
    await send(2, true);
    await send(3, true);
    await eventually(
      async () => mine(),
      (list) => list.length >= 2,
      20_000,
    );
    await send(4, false);
    const all = await eventually(
      async () => mine(),
      (list) => list.some((r) => r.url.includes('/close')),
      20_000,
    );
    expect(all.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /v2/alerts',
      'POST /v2/alerts',
      `POST /v2/alerts/${alias}/close?identifierType=alias`,
    ]);
    for (const request of all) {
      expect(request.headers.authorization).toBe(`GenieKey ${genieKey}`);
      expect(request.headers['content-type']).toBe('application/json');
    }
    expect(json(all[0]!.body)).toEqual({
      message: 'Check "Checkout API" is failing',
      alias,
      description: expect.stringContaining('expected 200, got 503'),
      priority: 'P2',
      source: 'Vigil',
      entity: 'Checkout API',
      tags: ['prod'],
      details: expect.objectContaining({ Check: 'Checkout API', Location: 'eu-west-1' }),
    });
    expect(json(all[1]!.body).alias).toBe(alias);
    expect(json(all[2]!.body)).toEqual({ source: 'Vigil', note: 'Checkout API has recovered and is passing again.' });
  }, 60_000);

  it('test sends reach both services and echo the request with the key masked; a PUT with the mask keeps the key', async () => {
    const { channel, account } = await channelSetup(vigil, {
      type: 'PAGERDUTY',
      config: { name: 'pd', serviceKey: routingKey },
    });
    const kept = await account.owner.put(`/v1/alert-channels/${channel.id}`, {
      type: 'PAGERDUTY',
      config: { name: 'pd renamed', serviceKey: '********' },
    });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    const before = pagerDuty.received.length;
    const test = await account.owner.post(`/v1/alert-channels/${channel.id}/test`);
    expect(test.status, JSON.stringify(test.body)).toBe(200);
    expect(test.body).toMatchObject({ outcome: 'delivered', statusCode: 202 });
    expect(JSON.stringify(test.body)).not.toContain(routingKey);
    expect(json(test.body.request.body)).toMatchObject({ routing_key: '********', event_action: 'trigger' });
    expect(json(pagerDuty.received[before]!.body).routing_key).toBe(routingKey);

    const og = await channelSetup(vigil, { type: 'OPSGENIE', config: { name: 'og', apiKey: genieKey } });
    const ogTest = await og.account.owner.post(`/v1/alert-channels/${og.channel.id}/test`);
    expect(ogTest.body).toMatchObject({ outcome: 'delivered', statusCode: 202 });
    expect(ogTest.body.request.headers.authorization).toBe('********');
    expect(JSON.stringify(ogTest.body)).not.toContain(genieKey);
  }, 60_000);
});
