import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVigil, type TestVigil } from '#test-vigil';
import { eventually } from '#test-processes';
import { channelSetup, json } from './channel-setup.ts';
import { startReceiver, type Receiver } from './receiver.ts';

// Issue 22: the new types ride the same durable delivery as webhooks: retries with the same
// delivery id, the delivery log, replay, and the connect-time address policy.
const routingKey = 'R0123456789abcdefABCDEF012345678';

interface Entry {
  deliveryId: string;
  attempt: number;
  outcome: string;
  statusCode: number | null;
  error: string | null;
}

describe('new channel types: retries, replay and the address policy', () => {
  let vigil: TestVigil;
  let pagerDuty: Receiver;
  beforeAll(async () => {
    // Down for the first two requests, then up.
    pagerDuty = await startReceiver((count) => (count <= 2 ? 503 : 202));
    vigil = await startVigil({
      env: {
        VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
        VIGIL_WEBHOOK_RETRY_DELAY_MS: '300',
        VIGIL_WEBHOOK_MAX_RETRIES: '3',
        VIGIL_PAGERDUTY_EVENTS_URL: `${pagerDuty.url}/v2/enqueue`,
      },
    });
  }, 60_000);
  afterAll(async () => {
    await vigil?.stop();
    await pagerDuty?.close();
  });

  it('retries a PagerDuty event the service refused until it is accepted, then replays it on request', async () => {
    const { send, channel, account, check } = await channelSetup(vigil, {
      type: 'PAGERDUTY',
      config: { name: 'pd', serviceKey: routingKey },
    });
    await send(0, false);
    await send(1, true);
    const log = async () => (await account.owner.get<Entry[]>(`/v1/alert-channels/${channel.id}/deliveries`)).body;
    const entries = await eventually(log, (list) => list.some((e) => e.outcome === 'delivered'), 20_000, 100);
    expect(entries.map((e) => [e.attempt, e.outcome, e.statusCode])).toEqual([
      [3, 'delivered', 202],
      [2, 'failed', 503],
      [1, 'failed', 503],
    ]);
    expect(new Set(entries.map((e) => e.deliveryId)).size).toBe(1);
    const mine = pagerDuty.received.filter((r) => r.body.includes(check.id));
    expect(mine).toHaveLength(3);
    // Every attempt is the same event: same webhook-id header, same dedup_key.
    expect(new Set(mine.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(mine.map((r) => json(r.body).dedup_key))).toEqual(new Set([`vigil-${check.id}`]));

    const replay = await account.owner.post(
      `/v1/alert-channels/${channel.id}/deliveries/${entries[0]!.deliveryId}/retry`,
    );
    expect(replay.status).toBe(202);
    const after = await eventually(log, (list) => list.length === 4, 20_000, 100);
    expect(after[0]).toMatchObject({ attempt: 4, outcome: 'delivered' });
    expect(JSON.stringify(after)).not.toContain(routingKey);
  }, 60_000);
});

describe('new channel types without private targets', () => {
  let vigil: TestVigil;
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver(() => 202);
    vigil = await startVigil({
      env: {
        VIGIL_PAGERDUTY_EVENTS_URL: `${receiver.url}/v2/enqueue`,
        VIGIL_SMTP_URL: 'smtp://localhost:2525',
      },
    });
  }, 60_000);
  afterAll(async () => {
    await vigil?.stop();
    await receiver?.close();
  });

  it('refuses plain http Slack URLs on save, and refuses loopback services and relays when sending', async () => {
    const { channel, account } = await channelSetup(vigil, {
      type: 'PAGERDUTY',
      config: { name: 'pd', serviceKey: routingKey },
    });
    const slack = await account.owner.post('/v1/alert-channels', {
      type: 'SLACK',
      config: { name: 's', url: 'http://hooks.example.com/services/x' },
    });
    expect(slack.status).toBe(400);
    expect(slack.body.message).toMatch(/^config\.url: SLACK requires an https URL/);

    const pd = await account.owner.post(`/v1/alert-channels/${channel.id}/test`);
    expect(pd.body.outcome).toBe('refused');
    expect(pd.body.error).toMatch(/127\.0\.0\.1 is in the loopback range.*VIGIL_ALLOW_PRIVATE_TARGETS/);
    expect(receiver.received).toHaveLength(0);

    const email = await account.owner.post('/v1/alert-channels', {
      type: 'EMAIL',
      config: { name: 'e', address: 'oncall@example.com' },
    });
    const sent = await account.owner.post(`/v1/alert-channels/${email.body.id}/test`);
    expect(sent.body).toMatchObject({ outcome: 'refused' });
    expect(sent.body.error).toMatch(/SMTP host localhost resolves to a blocked address: .*loopback/);
    const shown = await account.owner.get(`/v1/alert-channels/${email.body.id}`);
    expect(shown.body.problems).toEqual([
      expect.stringMatching(/^the last delivery .* was refused: the SMTP host localhost/),
    ]);
  }, 60_000);
});
