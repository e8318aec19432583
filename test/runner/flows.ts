import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { eventually } from '#test-processes';
import { startReceiver, type Receiver } from '../alerting/receiver.ts';

const SECRET = 'sk-live-runner-e2e-5f0c1d9a';

/** A local endpoint the check runs against; it answers `status` and records what it was sent. */
async function startTarget() {
  const state = { status: 200, requests: [] as Array<{ at: number; authorization?: string }> };
  const server: Server = createServer((req, res) => {
    state.requests.push({ at: Date.now(), authorization: req.headers.authorization });
    res.statusCode = state.status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ status: state.status === 200 ? 'ok' : 'down' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    state,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The runner through the whole system: a check defined through the API runs on schedule, its
 * results reach analytics, and a failure and a recovery come out as webhooks. One-minute checks
 * run once a minute, so these flows take a few minutes of real time.
 */
export function runnerSuite(name: string, env: () => Record<string, string>): void {
  describe(`check runner end to end (${name})`, () => {
    let vigil: TestVigil;
    let target: Awaited<ReturnType<typeof startTarget>>;
    const receivers: Receiver[] = [];
    beforeAll(async () => {
      target = await startTarget();
      vigil = await startVigil({
        env: {
          VIGIL_RUNNER_ALLOW_PRIVATE: 'true',
          VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
          VIGIL_WEBHOOK_RETRY_DELAY_MS: '500',
          ...env(),
        },
      });
    });
    afterAll(async () => {
      for (const receiver of receivers) await receiver.close();
      await vigil?.stop();
      await target?.close();
    });

    async function subscribe(account: Awaited<ReturnType<typeof createAccount>>, checkId: string) {
      const hook = await startReceiver();
      receivers.push(hook);
      const channel = await account.owner.post('/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: 'ops', url: `${hook.url}/hook`, webhookSecret: 'topsecret' },
      });
      expect(channel.status, JSON.stringify(channel.body)).toBe(201);
      const sub = await account.owner.put(`/v1/alert-channels/${channel.body.id}/subscriptions`, {
        checkId,
        activated: true,
      });
      expect(sub.status).toBe(200);
      return { hook, channelId: channel.body.id as string };
    }

    it('a heartbeat check that stops being pinged alerts after period + grace', async () => {
      const account = await createAccount(vigil);
      const created = await account.owner.post('/v1/checks', {
        name: 'nightly backup',
        checkType: 'HEARTBEAT',
        heartbeat: { period: 4, periodUnit: 'seconds', grace: 2, graceUnit: 'seconds' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const { hook } = await subscribe(account, created.body.id);
      const ping = await fetch(`${vigil.url}/ping/${created.body.heartbeat.pingToken}`);
      expect(ping.status).toBe(200);
      const pingedAt = Date.now();
      const [failure] = await eventually(
        async () => hook.ofType('ALERT_FAILURE'),
        (list) => list.length >= 1,
        30_000,
      );
      // Not before period + grace after the last ping.
      expect(failure!.at - pingedAt).toBeGreaterThanOrEqual(6_000 - 500);
      expect(JSON.parse(failure!.body)).toMatchObject({ CHECK_ID: created.body.id });
    });

    it('runs an API check every minute: passes, fails (ALERT_FAILURE within two runs), recovers (ALERT_RECOVERY); analytics show the runs; the secret stays secret', async () => {
      const account = await createAccount(vigil);
      const variable = await account.owner.post('/v1/variables', { key: 'API_TOKEN', value: SECRET, secret: true });
      expect(variable.status, JSON.stringify(variable.body)).toBe(201);
      const created = await account.owner.post('/v1/checks', {
        name: 'orders API',
        checkType: 'API',
        frequency: 1,
        request: {
          method: 'GET',
          url: `${target.url}/orders`,
          headers: [{ key: 'Authorization', value: 'Bearer {{API_TOKEN}}' }],
          assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
        },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const checkId = created.body.id as string;
      const { hook, channelId } = await subscribe(account, checkId);
      const runs = () => target.state.requests.length;
      const countRuns = async () => runs();

      await eventually(countRuns, (n) => n >= 1, 75_000, 500);
      expect(target.state.requests[0]!.authorization).toBe(`Bearer ${SECRET}`);
      target.state.status = 500;
      const failedFrom = runs();
      await eventually(
        async () => hook.ofType('ALERT_FAILURE'),
        (list) => list.length === 1,
        150_000,
        500,
      );
      expect(runs() - failedFrom).toBeLessThanOrEqual(2);
      target.state.status = 200;
      await eventually(
        async () => hook.ofType('ALERT_RECOVERY'),
        (list) => list.length === 1,
        90_000,
        500,
      );

      const analytics = await eventually(
        () => account.owner.get(`/v1/analytics/api-checks/${checkId}?metrics=responseTime&limit=50`),
        (response) => response.status === 200 && response.body.series[0]?.data.length >= 3,
        20_000,
        500,
      );
      const points = analytics.body.series[0].data as Array<{ resultId: string; responseTime: number }>;
      expect(new Set(points.map((p) => p.resultId)).size).toBe(points.length);
      expect(points.every((p) => typeof p.responseTime === 'number' && p.responseTime >= 0)).toBe(true);

      // The secret reached the target and nothing else: results, alerts, the delivery log.
      const everything = JSON.stringify([
        analytics.body,
        hook.received.map((r) => r.body),
        (await account.owner.get(`/v1/alert-channels/${channelId}/deliveries?limit=100`)).body,
        await vigil.running.platform.analytics!.query(`SELECT * FROM check_results`),
      ]);
      expect(everything).toContain(checkId);
      expect(everything).not.toContain(SECRET);
    }, 360_000);
  });
}
