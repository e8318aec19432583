import { createHmac, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { eventually } from '#test-processes';
import { startReceiver, type Receiver } from './receiver.ts';

const RETRY_DELAY_MS = 600;
const base = Date.parse('2026-11-20T10:00:00Z');
const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();

/** Alerting through the whole system: results in, signed webhooks out. */
export function alertingSuite(name: string, env: () => Record<string, string>): void {
  describe(`alerting end to end (${name})`, () => {
    let vigil: TestVigil;
    const receivers: Receiver[] = [];
    beforeAll(async () => {
      vigil = await startVigil({
        env: {
          VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
          VIGIL_WEBHOOK_RETRY_DELAY_MS: String(RETRY_DELAY_MS),
          VIGIL_WEBHOOK_TIMEOUT_MS: '3000',
          ...env(),
        },
      });
    });
    afterAll(async () => {
      for (const receiver of receivers) await receiver.close();
      await vigil?.stop();
    });

    const receiver = async (respond?: Parameters<typeof startReceiver>[0]) => {
      const r = await startReceiver(respond);
      receivers.push(r);
      return r;
    };
    async function setup(
      options: {
        channel?: Record<string, unknown>;
        check?: Record<string, unknown>;
        alertSettings?: Record<string, unknown>;
        respond?: Parameters<typeof startReceiver>[0];
      } = {},
    ) {
      const account = await createAccount(vigil);
      if (options.alertSettings) await account.owner.patch('/v1/accounts/me', { alertSettings: options.alertSettings });
      const check = (
        await account.owner.post('/v1/checks', {
          name: 'Checkout API',
          checkType: 'API',
          tags: ['prod', 'team:payments'],
          locations: ['eu-west-1'],
          ...options.check,
        })
      ).body;
      const hook = await receiver(options.respond);
      const channel = await account.owner.post('/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: 'ops', url: `${hook.url}/hook`, webhookSecret: 'topsecret' },
        ...options.channel,
      });
      expect(channel.status, JSON.stringify(channel.body)).toBe(201);
      expect(
        (
          await account.owner.put(`/v1/alert-channels/${channel.body.id}/subscriptions`, {
            checkId: check.id,
            activated: true,
          })
        ).status,
      ).toBe(200);
      const send = async (minutes: number, fields: Record<string, unknown> = {}) => {
        const result = {
          id: randomUUID(),
          accountId: account.accountId,
          checkId: check.id,
          checkType: 'API',
          startedAt: at(minutes),
          runLocation: 'eu-west-1',
          hasFailures: false,
          responseTime: 120,
          statusCode: 200,
          ...fields,
        };
        const response = await vigil.as(vigil.ingestKey).post('/v1/check-results', [result]);
        expect(response.body.accepted, JSON.stringify(response.body)).toBe(1);
        return result;
      };
      return { account, check, channel: channel.body, hook, send };
    }

    it('delivers ALERT_FAILURE signed both ways, then ALERT_RECOVERY', async () => {
      const { hook, send, check } = await setup();
      await send(0);
      await send(1, {
        hasFailures: true,
        statusCode: 503,
        statusText: 'Service Unavailable',
        errorMessage: 'He said "down"\nthen left',
      });
      const [failure] = await eventually(
        async () => hook.ofType('ALERT_FAILURE'),
        (list) => list.length === 1,
        20_000,
      );
      const body = JSON.parse(failure!.body);
      expect(body).toMatchObject({
        CHECK_ID: check.id,
        CHECK_NAME: 'Checkout API',
        API_CHECK_RESPONSE_STATUS_CODE: 503,
        CHECK_ERROR_MESSAGE: 'He said "down"\nthen left',
        TAGS: ['prod', 'team:payments'],
      });
      const signature = failure!.headers['x-service-signature'];
      expect(signature).toBe(createHmac('sha256', 'topsecret').update(failure!.body).digest('hex'));
      expect(signature).toBe(
        createHmac('sha256', 'topsecret')
          .update(JSON.stringify(JSON.parse(failure!.body)))
          .digest('hex'),
      );
      expect(Number(failure!.headers['x-service-timestamp'])).toBeGreaterThan(1_700_000_000);
      expect(failure!.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(failure!.headers['user-agent']).toMatch(/^Vigil\//);
      expect(failure!.headers['content-type']).toBe('application/json');
      await send(2);
      await eventually(
        async () => hook.ofType('ALERT_RECOVERY'),
        (list) => list.length === 1,
        20_000,
      );
      // A replayed result (same id) never alerts twice.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(hook.ofType('ALERT_FAILURE')).toHaveLength(1);
    });

    it('retries a receiver that fails twice: exactly 3 attempts, never before the delay', async () => {
      const { hook, send, account, channel } = await setup({ respond: (n) => (n <= 2 ? 500 : 200) });
      await send(0, { hasFailures: true });
      await eventually(
        async () => hook.received.length,
        (n) => n >= 3,
        20_000,
      );
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * 2));
      expect(hook.received).toHaveLength(3);
      const ids = new Set(hook.received.map((r) => r.headers['webhook-id']));
      expect(ids.size).toBe(1);
      for (const gap of [hook.received[1]!.at - hook.received[0]!.at, hook.received[2]!.at - hook.received[1]!.at]) {
        // Never early (20% for the receiver's clock reading a request late); the upper bound is the
        // loop's own worst case, the delay plus one idle poll (1 s), with room for a loaded machine:
        // timings in a pass/fail test must not depend on the neighbours.
        expect(gap).toBeGreaterThanOrEqual(RETRY_DELAY_MS * 0.8);
        expect(gap).toBeLessThanOrEqual(RETRY_DELAY_MS + 1_000 + 1_000);
      }
      const log = await account.owner.get(`/v1/alert-channels/${channel.id}/deliveries`);
      expect(log.body.map((a: { attempt: number; outcome: string }) => [a.attempt, a.outcome])).toEqual([
        [3, 'delivered'],
        [2, 'failed'],
        [1, 'failed'],
      ]);
      expect(log.body[1].statusCode).toBe(500);
      expect(log.body[1].responseBody).toBe('nope');
      expect((await account.owner.get(`/v1/alert-channels/${channel.id}/deliveries?outcome=failed`)).body).toHaveLength(
        2,
      );
    });

    it('gives up after 6 attempts on a receiver that always fails, and marks the delivery failed', async () => {
      const { hook, send, account, channel } = await setup({ respond: () => 503 });
      await send(0, { hasFailures: true });
      await eventually(
        async () => hook.received.length,
        (n) => n >= 6,
        30_000,
      );
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * 3));
      expect(hook.received).toHaveLength(6);
      const log = (await account.owner.get(`/v1/alert-channels/${channel.id}/deliveries?limit=10`)).body;
      expect(log).toHaveLength(6);
      expect(log.every((a: { outcome: string }) => a.outcome === 'failed')).toBe(true);
      const delivery = await vigil.running.platform.stateStore.get(`webhook:delivery:${log[0].deliveryId}`);
      expect(JSON.parse(delivery!).status).toBe('failed');
      // A replay makes one more attempt with the same delivery id.
      const replay = await account.owner.post(`/v1/alert-channels/${channel.id}/deliveries/${log[0].deliveryId}/retry`);
      expect(replay.status).toBe(202);
      await eventually(
        async () => hook.received.length,
        (n) => n === 7,
        10_000,
      );
      expect(hook.received[6]!.headers['webhook-id']).toBe(log[0].deliveryId);
    });

    it('sends degraded alerts when asked, and recovery from degraded', async () => {
      const { hook, send } = await setup({ channel: { sendDegraded: true } });
      await send(0, { isDegraded: true, responseTime: 6000 });
      await eventually(
        async () => hook.ofType('ALERT_DEGRADED'),
        (list) => list.length === 1,
        20_000,
      );
      await send(1, { hasFailures: true });
      await eventually(
        async () => hook.ofType('ALERT_FAILURE'),
        (list) => list.length === 1,
        20_000,
      );
      await send(2);
      await eventually(
        async () => hook.ofType('ALERT_RECOVERY'),
        (list) => list.length === 1,
        20_000,
      );
    });

    it('sends reminders while a check keeps failing, flagged and numbered', async () => {
      const { hook, send } = await setup({
        alertSettings: {
          escalationType: 'RUN_BASED',
          runBasedEscalation: { failedRunThreshold: 2 },
          reminders: { amount: 2, interval: 1 },
        },
      });
      for (let minute = 0; minute <= 5; minute++) await send(minute, { hasFailures: true });
      const failures = await eventually(
        async () => hook.ofType('ALERT_FAILURE'),
        (list) => list.length === 3,
        20_000,
      );
      expect(failures.map((r) => [JSON.parse(r.body).IS_REMINDER, JSON.parse(r.body).REMINDER_SEQUENCE])).toEqual([
        [false, 0],
        [true, 1],
        [true, 2],
      ]);
    });

    it('sends ALERT_SSL at most once per check per day, by the channel threshold', async () => {
      const { hook, send } = await setup({ channel: { sslExpiry: true, sslExpiryThreshold: 10 } });
      await send(0, { ssl: { daysRemaining: 5, domain: 'shop.example.com' } });
      await send(1, { ssl: { daysRemaining: 5, domain: 'shop.example.com' } });
      const [ssl] = await eventually(
        async () => hook.ofType('ALERT_SSL'),
        (list) => list.length >= 1,
        20_000,
      );
      expect(JSON.parse(ssl!.body)).toMatchObject({ SSL_DAYS_REMAINING: 5, SSL_CHECK_DOMAIN: 'shop.example.com' });
      await send(60 * 24 + 5, { ssl: { daysRemaining: 4, domain: 'shop.example.com' } });
      await eventually(
        async () => hook.ofType('ALERT_SSL'),
        (list) => list.length === 2,
        20_000,
      );
    });

    it('signs with Standard Webhooks headers for a whsec_ secret, verified by the standardwebhooks library', async () => {
      const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
      const hook = await receiver();
      const { send, account, check } = await setup();
      const channel = await account.owner.post('/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: 'sw', url: `${hook.url}/sw`, webhookSecret: secret },
      });
      await account.owner.put(`/v1/alert-channels/${channel.body.id}/subscriptions`, {
        checkId: check.id,
        activated: true,
      });
      await send(0, { hasFailures: true });
      const [delivery] = await eventually(
        async () => hook.ofType('ALERT_FAILURE'),
        (list) => list.length === 1,
        20_000,
      );
      const headers = delivery!.headers as Record<string, string>;
      expect(headers['webhook-signature']).toMatch(/^v1,/);
      expect(verifyStandardWebhook(secret, headers, delivery!.body)).toMatchObject({
        ALERT_TYPE: 'ALERT_FAILURE',
        CHECK_ID: check.id,
      });
      expect(() =>
        verifyStandardWebhook(secret, headers, delivery!.body.replace('ALERT_FAILURE', 'ALERT_RECOVERY')),
      ).toThrow();
    });

    it('renders a template with eq, contains, each, moment and variables exactly', async () => {
      const a = await createAccount(vigil);
      await a.owner.post('/v1/variables', { key: 'TEAM', value: 'payments' });
      await a.owner.post('/v1/variables', { key: 'PAGER', value: 'never-shown', secret: true });
      const template =
        '{"status":"{{#eq ALERT_TYPE "ALERT_FAILURE"}}DOWN{{else}}UP{{/eq}}","prod":{{#contains TAGS "prod"}}true{{else}}false{{/contains}},"tags":"{{#each TAGS}}{{this}}{{#unless @last}}|{{/unless}}{{/each}}","year":"{{moment "YYYY"}}","team":"{{TEAM}}","pager":"{{PAGER}}"}';
      const check = (await a.owner.post('/v1/checks', { name: 'c', checkType: 'API', tags: ['prod', 'eu'] })).body;
      const preview = await a.owner.post('/v1/alert-channels/preview', {
        config: { name: 'p', url: 'https://hooks.example.com/x', template },
        alertType: 'ALERT_FAILURE',
        checkId: check.id,
      });
      expect(preview.status, JSON.stringify(preview.body)).toBe(200);
      expect(preview.body.body).toBe(
        JSON.stringify({
          status: 'DOWN',
          prod: true,
          tags: 'prod|eu',
          year: String(new Date().getUTCFullYear()),
          team: 'payments',
          pager: '',
        }),
      );
      expect(preview.body.warnings.join(' ')).toMatch(/PAGER is a secret/);
      const bad = await a.owner.post('/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: 'bad', url: 'https://hooks.example.com', template: '{\n  "a": {{#if X}}\n}' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(/line \d+, column \d+/);
      const sms = await a.owner.post('/v1/alert-channels', {
        type: 'SMS',
        config: { name: 's', url: 'https://hooks.example.com' },
      });
      expect(sms.status).toBe(400);
      expect(sms.body.message).toMatch(/not supported/);
    });

    it('masks the webhook secret everywhere and returns test-message details', async () => {
      const hook = await receiver();
      const a = await createAccount(vigil);
      const created = await a.owner.post('/v1/alert-channels', {
        type: 'WEBHOOK',
        config: {
          name: 't',
          url: `${hook.url}/t`,
          webhookSecret: 'supersecret',
          headers: [{ key: 'Authorization', value: 'Bearer abc' }],
        },
      });
      expect(created.body.config.webhookSecret).toBe('********');
      expect(JSON.stringify((await a.owner.get(`/v1/alert-channels/${created.body.id}`)).body)).not.toContain(
        'supersecret',
      );
      const test = await a.owner.post(`/v1/alert-channels/${created.body.id}/test`);
      expect(test.status).toBe(200);
      expect(test.body).toMatchObject({ outcome: 'delivered', statusCode: 200, responseBody: 'ok' });
      expect(test.body.request.headers.authorization ?? test.body.request.headers.Authorization).toBe('********');
      expect(JSON.parse(test.body.request.body).ALERT_TYPE).toBe('ALERT_FAILURE');
      expect(hook.received).toHaveLength(1);
    });
  });
}

/** The published Standard Webhooks example, checked with the standardwebhooks library itself. */
export function verifyStandardWebhook(secret: string, headers: Record<string, string>, body: string): unknown {
  return new Webhook(secret).verify(body, headers);
}
