import { createServer as createNetServer } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributed, type DistributedFixture } from '#test-distributed';
import { eventually, spawnApp, waitForOk, type AppProcess } from '#test-processes';
import { startReceiver, type Receiver } from '../alerting/receiver.ts';

const LOCATION = 'eu-west-1';
const SECRET = 'sk-live-script-processes-31d8a2';

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The distributed deployment as processes: runner, alerter and dispatcher are real processes on
 * Redis, Kafka and ClickHouse. A MULTI_STEP check runs on schedule in the runner's sandbox; its
 * failure reaches ClickHouse through Kafka and comes out as a webhook; the runner's /ready
 * reports its sandbox; the secret stays secret.
 */
describe('a failing script check alerts on the distributed deployment', () => {
  let fixture: DistributedFixture;
  let target: Server;
  let targetUrl = '';
  let hook: Receiver;
  const seen: string[] = [];
  const apps: AppProcess[] = [];

  beforeAll(async () => {
    target = createServer((req, res) => {
      seen.push(String(req.headers['x-token'] ?? ''));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: false }));
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    hook = await startReceiver();
    fixture = await startDistributed({ checks: 0, apps: 'api,projector,ingestor' });
  });
  afterAll(async () => {
    for (const app of apps) await app.kill('SIGTERM');
    await fixture?.stop();
    await hook?.close();
    await new Promise((resolve) => target?.close(resolve));
  });

  it('runs the script in the runner process and the alert webhook arrives', async () => {
    const runnerPort = await freePort();
    const runner = spawnApp('runner', {
      ...fixture.env,
      PORT: String(runnerPort),
      VIGIL_RUNNER_LOCATION: LOCATION,
      VIGIL_RUNNER_DEFAULT_LOCATION: LOCATION,
      VIGIL_RUNNER_ALLOW_PRIVATE: 'true',
    });
    apps.push(
      runner,
      spawnApp('alerter', fixture.env),
      spawnApp('dispatcher', {
        ...fixture.env,
        VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
        VIGIL_WEBHOOK_RETRY_DELAY_MS: '300',
      }),
    );
    await waitForOk(`http://127.0.0.1:${runnerPort}`, '/ready', 120_000, 500).catch((error: unknown) => {
      throw new Error(`runner not ready: ${String(error)}\n${runner.output().slice(-2000)}`);
    });
    const ready = (await (await fetch(`http://127.0.0.1:${runnerPort}/ready`)).json()) as {
      checks: Record<string, unknown>;
    };
    expect(ready.checks.sandbox).toEqual({ ok: true });

    const { owner } = fixture.account;
    expect((await owner.post('/v1/variables', { key: 'API_TOKEN', value: SECRET, secret: true })).status).toBe(201);
    const created = await owner.post('/v1/checks', {
      name: 'checkout script',
      checkType: 'MULTI_STEP',
      frequency: 1,
      locations: [LOCATION],
      script: `
const { test, expect } = require('@playwright/test');
test('checkout', async ({ request }) => {
  await test.step('pay', async () => {
    const response = await request.get('${targetUrl}/pay', { headers: { 'x-token': process.env.API_TOKEN } });
    console.log('paid with', process.env.API_TOKEN);
    expect((await response.json()).ok).toBe(true);
  });
});
`,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const checkId = created.body.id as string;
    const channel = await owner.post('/v1/alert-channels', {
      type: 'WEBHOOK',
      config: { name: 'ops', url: `${hook.url}/hook` },
    });
    expect(channel.status, JSON.stringify(channel.body)).toBe(201);
    expect(
      (await owner.put(`/v1/alert-channels/${channel.body.id}/subscriptions`, { checkId, activated: true })).status,
    ).toBe(200);

    const [failure] = await eventually(
      async () => hook.ofType('ALERT_FAILURE'),
      (list) => list.length >= 1,
      180_000,
      500,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nrunner: ${runner.output().slice(-3000)}`);
    });
    expect(JSON.parse(failure!.body)).toMatchObject({ CHECK_ID: checkId });
    expect(seen).toContain(SECRET);

    const runs = await eventually(
      () => owner.get(`/v1/check-results/${checkId}?limit=5`),
      (response) => response.status === 200 && response.body.items?.length >= 1,
      30_000,
      500,
    );
    const run = await owner.get(`/v1/check-results/${checkId}/${runs.body.items[0].id}`);
    expect(run.body).toMatchObject({ hasFailures: true, runLocation: LOCATION });
    expect(run.body.errorMessage).toMatch(/pay/);
    expect(run.body.logs).toContain('paid with ********');
    const everything = JSON.stringify([run.body, hook.received.map((r) => r.body)]);
    expect(everything).not.toContain(SECRET);
  }, 300_000);
});
