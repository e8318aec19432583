import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { eventually } from '#test-processes';
import { startReceiver, type Receiver } from '../alerting/receiver.ts';

const SECRET = 'sk-live-script-e2e-7b1e44c0';

/** A local target: /ok answers ok, /broken answers ok: false (the script's expect fails on it). */
async function startTarget() {
  const seen: { url: string; token: string | undefined; greeting: string | undefined }[] = [];
  const server: Server = createServer((req, res) => {
    seen.push({
      url: req.url ?? '',
      token: req.headers['x-token'] as string | undefined,
      greeting: req.headers['x-greeting'] as string | undefined,
    });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: !req.url?.startsWith('/broken'), echo: req.headers['x-token'] ?? null }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    seen,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A MULTI_STEP script that calls `path` with the secret and greeting from process.env, in two steps. */
const script = (path: string) => `
import { test, expect } from '@playwright/test';
test('orders flow', async ({ request }) => {
  await test.step('health', async () => {
    const response = await request.get(process.env.TARGET + '/ok');
    expect(response.ok()).toBe(true);
  });
  await test.step('place order', async () => {
    const response = await request.post(process.env.TARGET + '${path}', {
      headers: { 'x-token': process.env.API_TOKEN, 'x-greeting': process.env.GREETING ?? '' },
      data: { item: 1 },
    });
    console.log('placed with', process.env.API_TOKEN);
    expect((await response.json()).ok, 'order accepted').toBe(true);
  });
});
`;

/**
 * Script checks through the whole system: test and trigger through the API, a scheduled run, a
 * stored result with its steps, an alert webhook from a failing script, and the MULTI_STEP
 * analytics endpoint; the secret reaches the script and nothing else.
 */
export function scriptChecksSuite(name: string, env: () => Record<string, string>): void {
  describe(`script checks end to end (${name})`, () => {
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

    async function account() {
      const a = await createAccount(vigil);
      for (const variable of [
        { key: 'TARGET', value: target.url },
        { key: 'API_TOKEN', value: SECRET, secret: true },
      ]) {
        const created = await a.owner.post('/v1/variables', variable);
        expect(created.status, JSON.stringify(created.body)).toBe(201);
      }
      return a;
    }

    it('tests an unsaved MULTI_STEP script: passes with its steps, the secret reaches the target and is scrubbed', async () => {
      const a = await account();
      const run = await a.owner.post('/v1/checks/test', {
        name: 'orders',
        checkType: 'MULTI_STEP',
        script: script('/ok/orders'),
      });
      expect(run.status, JSON.stringify(run.body)).toBe(200);
      const result = run.body.result;
      expect(result.errorMessage).toBeUndefined();
      expect(result).toMatchObject({ checkType: 'MULTI_STEP', hasFailures: false, runLocation: 'local' });
      expect(result.runtimeId).toMatch(/^\d{4}\.\d{2}$/);
      expect(result.steps.map((s: { name: string; status: string }) => [s.name, s.status])).toEqual(
        expect.arrayContaining([
          ['health', 'passed'],
          ['place order', 'passed'],
        ]),
      );
      expect(result.logs).toContain('placed with ********');
      expect(target.seen).toContainEqual({ url: '/ok/orders', token: SECRET, greeting: '' });
      expect(JSON.stringify(run.body)).not.toContain(SECRET);
      expect((await a.owner.get('/v1/checks')).body).toEqual([]);
    });

    it('fails a test run naming the failed step; refuses a removed runtime naming the current one', async () => {
      const a = await account();
      const run = await a.owner.post('/v1/checks/test', {
        name: 'orders',
        checkType: 'MULTI_STEP',
        script: script('/broken/orders'),
      });
      expect(run.status, JSON.stringify(run.body)).toBe(200);
      expect(run.body.result.hasFailures).toBe(true);
      expect(run.body.result.errorMessage).toMatch(/place order/);
      expect(run.body.result.errorMessage).not.toContain(SECRET);

      const removed = await a.owner.post('/v1/checks', {
        name: 'old',
        checkType: 'MULTI_STEP',
        script: script('/ok'),
        runtimeId: '2024.09',
      });
      expect(removed.status, JSON.stringify(removed.body)).toBe(400);
      expect(removed.body.message).toMatch(/runtimeId.*2024\.09.*removed.*current runtime "\d{4}\.\d{2}"/);
    });

    it('triggers a failing saved script in a group: stored with its steps, ALERT_FAILURE webhook, analytics answer; the secret stays secret', async () => {
      const a = await account();
      const group = await a.owner.post('/v1/check-groups', {
        name: 'shop',
        environmentVariables: [{ key: 'GREETING', value: 'hello-from-group' }],
      });
      expect(group.status, JSON.stringify(group.body)).toBe(201);
      const created = await a.owner.post('/v1/checks', {
        name: 'checkout',
        checkType: 'MULTI_STEP',
        script: script('/broken/checkout'),
        groupId: group.body.id,
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body).toMatchObject({ maxResponseTime: 240_000, script: script('/broken/checkout') });
      const checkId = created.body.id as string;
      const hook = await startReceiver();
      receivers.push(hook);
      const channel = await a.owner.post('/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: 'ops', url: `${hook.url}/hook` },
      });
      expect(channel.status, JSON.stringify(channel.body)).toBe(201);
      const sub = await a.owner.put(`/v1/alert-channels/${channel.body.id}/subscriptions`, {
        checkId,
        activated: true,
      });
      expect(sub.status, JSON.stringify(sub.body)).toBe(200);

      const triggered = await a.owner.post(`/v1/checks/${checkId}/trigger`);
      expect(triggered.status, JSON.stringify(triggered.body)).toBe(200);
      const result = triggered.body.results[0].result;
      expect(result).toMatchObject({ checkType: 'MULTI_STEP', hasFailures: true });
      expect(result.errorMessage).toMatch(/place order/);
      // Group variables reach the script too (account, then group).
      expect(target.seen).toContainEqual({ url: '/broken/checkout', token: SECRET, greeting: 'hello-from-group' });

      const [failure] = await eventually(
        async () => hook.ofType('ALERT_FAILURE'),
        (list) => list.length >= 1,
        60_000,
        250,
      );
      expect(JSON.parse(failure!.body)).toMatchObject({ CHECK_ID: checkId });

      const stored = await eventually(
        () => a.owner.get(`/v1/check-results/${checkId}/${result.id}`),
        (response) => response.status === 200,
        20_000,
        250,
      );
      expect(stored.body).toMatchObject({ hasFailures: true, runtimeId: result.runtimeId });
      expect(stored.body.errorMessage).toMatch(/place order/);
      expect(stored.body.steps.find((s: { name: string }) => s.name === 'place order')).toMatchObject({
        status: 'failed',
      });
      expect(stored.body.logs).toContain('placed with ********');
      expect(stored.body.requests.some((r: { url: string }) => r.url.endsWith('/broken/checkout'))).toBe(true);

      const analytics = await eventually(
        () => a.owner.get(`/v1/analytics/multistep-checks/${checkId}?metrics=responseTime&limit=10`),
        (response) => response.status === 200 && response.body.series?.[0]?.data.length >= 1,
        20_000,
        250,
      );
      expect(analytics.body.series[0].data[0]).toMatchObject({ resultId: result.id });

      const everything = JSON.stringify([
        triggered.body,
        stored.body,
        analytics.body,
        hook.received.map((r) => r.body),
        (await a.owner.get(`/v1/alert-channels/${channel.body.id}/deliveries?limit=100`)).body,
        await vigil.running.platform.analytics!.query(`SELECT * FROM check_results`),
      ]);
      expect(everything).toContain(checkId);
      expect(everything).not.toContain(SECRET);
    }, 120_000);

    it('tests a PLAYWRIGHT test project (files) and a BROWSER check with a script: pages come back', async () => {
      const a = await account();
      const spec = (name: string) => `
import { test, expect } from '@playwright/test';
test('${name}', async ({ page }) => {
  await page.goto(process.env.TARGET + '/ok/${name}');
  await expect(page.locator('body')).toContainText('echo');
});
`;
      const project = await a.owner.post('/v1/checks/test', {
        name: 'suite',
        checkType: 'PLAYWRIGHT',
        files: [
          { path: 'playwright.config.ts', content: 'export default { testDir: "tests" };' },
          { path: 'tests/home.spec.ts', content: spec('home') },
          { path: 'tests/cart.spec.ts', content: spec('cart') },
        ],
      });
      expect(project.status, JSON.stringify(project.body)).toBe(200);
      expect(project.body.result.errorMessage).toBeUndefined();
      expect(project.body.result).toMatchObject({ checkType: 'PLAYWRIGHT', hasFailures: false });
      const names = project.body.result.steps.map((step: { name: string }) => step.name).join(' ');
      expect(names).toMatch(/home/);
      expect(names).toMatch(/cart/);
      expect(project.body.result.pages.length).toBeGreaterThanOrEqual(2);

      const browser = await a.owner.post('/v1/checks/test', { name: 'home', checkType: 'BROWSER', script: spec('b') });
      expect(browser.status, JSON.stringify(browser.body)).toBe(200);
      expect(browser.body.result).toMatchObject({ checkType: 'BROWSER', hasFailures: false });
      expect(browser.body.result.pages[0].url).toContain('/ok/b');
    }, 120_000);

    it('runs a saved MULTI_STEP check on schedule', async () => {
      const a = await account();
      const created = await a.owner.post('/v1/checks', {
        name: 'scheduled',
        checkType: 'MULTI_STEP',
        frequency: 1,
        script: script('/ok/scheduled'),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const checkId = created.body.id as string;
      const runs = await eventually(
        () => a.owner.get(`/v1/check-results/${checkId}?limit=10`),
        (response) => response.status === 200 && response.body.items?.length >= 1,
        150_000,
        1_000,
      );
      expect(runs.body.items[0]).toMatchObject({ hasFailures: false });
      expect(target.seen.some((s) => s.url === '/ok/scheduled' && s.token === SECRET)).toBe(true);
      await a.owner.delete(`/v1/checks/${checkId}`);
    }, 180_000);
  });
}
