import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { eventually } from '#test-processes';
import { at, json } from './channel-setup.ts';
import { startReceiver, type Receiver } from './receiver.ts';

// Issue 22: a check fails inside a maintenance window and no channel hears of it; it fails after the
// window and every channel does, once, as a fresh failure carrying the run after the window.
const routingKey = 'R0123456789abcdefABCDEF012345678';

describe('maintenance windows end to end (embedded)', () => {
  let vigil: TestVigil;
  let webhook: Receiver;
  let slack: Receiver;
  let pagerDuty: Receiver;
  beforeAll(async () => {
    [webhook, slack, pagerDuty] = await Promise.all([startReceiver(), startReceiver(), startReceiver(() => 202)]);
    vigil = await startVigil({
      env: {
        VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
        VIGIL_WEBHOOK_RETRY_DELAY_MS: '600',
        VIGIL_PAGERDUTY_EVENTS_URL: `${pagerDuty.url}/v2/enqueue`,
      },
    });
  }, 60_000);
  afterAll(async () => {
    await vigil?.stop();
    await Promise.all([webhook, slack, pagerDuty].map((r) => r?.close()));
  });

  it('a failure inside the window reaches no channel; still failing after it, it reaches every channel once', async () => {
    const account = await createAccount(vigil);
    const owner = account.owner;
    const check = (
      await owner.post('/v1/checks', { name: 'Orders DB', checkType: 'API', tags: ['db'], locations: ['eu-west-1'] })
    ).body as { id: string };
    const channels = [
      { type: 'WEBHOOK', config: { name: 'hook', url: `${webhook.url}/hook` } },
      { type: 'SLACK', config: { name: 'slack', url: `${slack.url}/services/T000/B000/XXX` } },
      { type: 'PAGERDUTY', config: { name: 'pd', serviceKey: routingKey } },
    ];
    for (const channel of channels) {
      const created = await owner.post('/v1/alert-channels', channel);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const subscribed = await owner.put(`/v1/alert-channels/${created.body.id}/subscriptions`, {
        checkId: check.id,
        activated: true,
      });
      expect(subscribed.status).toBe(200);
    }
    // Results are posted by an outside producer, so the window must not pause runs to be tested here.
    const window = await owner.post('/v1/maintenance-windows', {
      name: 'DB migration',
      tags: ['db'],
      startsAt: at(10),
      endsAt: at(30),
      pauseRuns: false,
    });
    expect(window.status, JSON.stringify(window.body)).toBe(201);

    const send = async (minutes: number, failing: boolean) => {
      const id = randomUUID();
      const response = await vigil.as(vigil.ingestKey).post('/v1/check-results', [
        {
          id,
          accountId: account.accountId,
          checkId: check.id,
          checkType: 'API',
          startedAt: at(minutes),
          runLocation: 'eu-west-1',
          hasFailures: failing,
          responseTime: 120,
          statusCode: failing ? 503 : 200,
          ...(failing ? { errorMessage: 'expected 200, got 503' } : {}),
        },
      ]);
      expect(response.body.accepted, JSON.stringify(response.body)).toBe(1);
      return id;
    };
    const mine = (receiver: Receiver) => receiver.received.filter((r) => r.body.includes(check.id));

    await send(0, false);
    for (const minute of [10, 15, 20, 29]) await send(minute, true);
    // The alerter handles a check's results in order: whatever the window's failures had decided
    // would be delivered before what the first run after the window decides.
    const after = await send(30, true);
    for (const receiver of [webhook, slack, pagerDuty])
      await eventually(
        async () => mine(receiver),
        (list) => list.length >= 1,
        20_000,
      );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(mine(webhook)).toHaveLength(1);
    expect(json(mine(webhook)[0]!.body)).toMatchObject({ ALERT_TYPE: 'ALERT_FAILURE', CHECK_RESULT_ID: after });
    expect(mine(slack)).toHaveLength(1);
    expect(mine(slack)[0]!.body).toContain('failing');
    expect(mine(pagerDuty)).toHaveLength(1);
    expect(json(mine(pagerDuty)[0]!.body)).toMatchObject({ event_action: 'trigger', routing_key: routingKey });

    // Recovery after the window reaches every channel too (PagerDuty resolves the incident).
    await send(31, false);
    await eventually(
      async () => mine(pagerDuty),
      (list) => list.some((r) => json(r.body).event_action === 'resolve'),
      20_000,
    );
    await eventually(
      async () => webhook.ofType('ALERT_RECOVERY').filter((r) => r.body.includes(check.id)),
      (list) => list.length === 1,
      20_000,
    );
  }, 90_000);
});
