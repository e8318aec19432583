import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '#core';
import { createSandbox, type Sandbox } from '#sandbox';
import { createScriptRunner } from '#scripts';
import { runProbe, runWithRetries } from './run.ts';
import type { ProbeContext, RunnableDefinition, ScriptRunner } from './types.ts';

// Script checks through runProbe with the real script runner: each installed runtime's Playwright
// Test in the real sandbox, against a local target. A missing runtime or sandbox fails the suite.
const runtimesEnv = inject('runtimes');
const installed = 'installed' in runtimesEnv ? runtimesEnv.installed : [];
const SECRET = 's3cr3t-Value-9f1c';

let server: Server;
let target = '';
let sandbox: Sandbox;
let scripts: ScriptRunner;
const seen: { url: string; token: string | undefined }[] = [];

beforeAll(async () => {
  if ('error' in runtimesEnv) throw new Error(runtimesEnv.error);
  if (installed.length === 0) throw new Error('no runtime is installed');
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', token: req.headers['x-token'] as string | undefined });
    res.setHeader('content-type', 'application/json');
    res.setHeader('x-echo', String(req.headers['x-token'] ?? ''));
    res.end(JSON.stringify({ ok: req.url !== '/broken', token: req.headers['x-token'] ?? null }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const logger = createLogger({ level: 'warn', name: 'script-probe-test' });
  sandbox = createSandbox({ logger });
  scripts = createScriptRunner({ sandbox, runtimesRoot: runtimesEnv.root, logger });
  expect(await scripts.ready()).toEqual({ ok: true });
});

afterAll(async () => {
  await scripts?.close();
  await sandbox?.close();
  await new Promise((resolve) => server?.close(resolve));
});

const context = (overrides: Partial<ProbeContext> = {}): ProbeContext => ({
  resultId: crypto.randomUUID(),
  accountId: crypto.randomUUID(),
  checkId: crypto.randomUUID(),
  location: 'local',
  startedAt: new Date(),
  degradedResponseTime: 60_000,
  maxResponseTime: 60_000,
  variables: { TARGET: target, API_TOKEN: SECRET },
  secretValues: [SECRET],
  allowPrivate: true,
  timeoutMs: 65_000,
  scripts,
  ...overrides,
});

const passing = `
import { test, expect } from '@playwright/test';
test('orders', async ({ request }) => {
  await test.step('list orders', async () => {
    const response = await request.get(process.env.TARGET + '/orders', { headers: { 'x-token': process.env.API_TOKEN } });
    expect(response.status()).toBe(200);
    console.log('token is', process.env.API_TOKEN);
  });
});
`;

const failing = `
const { test, expect } = require('@playwright/test');
test('checkout', async ({ request }) => {
  await test.step('load cart', async () => {
    const response = await request.get(process.env.TARGET + '/cart');
    expect(response.ok()).toBe(true);
  });
  await test.step('pay with ' + process.env.API_TOKEN.slice(0, 0) + 'card', async () => {
    const response = await request.get(process.env.TARGET + '/broken');
    expect((await response.json()).ok, 'payment accepted').toBe(true);
  });
});
`;

describe.each(installed)('script checks on runtime %s', (runtimeId) => {
  const multiStep = (script: string): RunnableDefinition => ({ checkType: 'MULTI_STEP', script, runtimeId });

  it('passes a MULTI_STEP script: v1 result with steps, logs and requests, the secret reaching the target and scrubbed everywhere', async () => {
    seen.length = 0;
    const { result } = await runProbe(multiStep(passing), context());
    expect(result.errorMessage).toBeUndefined();
    expect(result).toMatchObject({ checkType: 'MULTI_STEP', hasFailures: false, isDegraded: false, runtimeId });
    expect(result.responseTime).toBeGreaterThan(0);
    expect(result.steps?.map((step) => [step.name, step.status])).toContainEqual(['list orders', 'passed']);
    // The secret was in the script's env and sent to the target…
    expect(seen).toContainEqual({ url: '/orders', token: SECRET });
    // …and appears nowhere in what the run reports.
    const text = JSON.stringify(result);
    expect(text).not.toContain(SECRET);
    expect(result.logs).toContain('token is ********');
    const request = result.requests?.find((r) => r.url.endsWith('/orders'));
    expect(request).toMatchObject({ method: 'GET', status: 200 });
    expect(request?.requestHeaders?.['x-token']).toBe('********');
    expect(request?.responseHeaders?.['x-echo']).toBe('********');
    expect(request?.responseBody).toContain('********');
    expect(result.pages).toBeUndefined();
  });

  it('fails a script whose expect fails, naming the step', async () => {
    const { result } = await runProbe(multiStep(failing), context());
    expect(result.hasFailures).toBe(true);
    expect(result.errorMessage).toMatch(/pay with card/);
    expect(result.steps?.find((step) => step.name === 'pay with card')?.status).toBe('failed');
    expect(result.steps?.find((step) => step.name === 'load cart')?.status).toBe('passed');
  });

  it('is degraded over degradedResponseTime and fails over maxResponseTime, like every other run', async () => {
    const degraded = await runProbe(multiStep(passing), context({ degradedResponseTime: 1 }));
    expect(degraded.result).toMatchObject({ hasFailures: false, isDegraded: true });
    // A budget the script cannot meet: the sandbox stops it and the run fails with the limit.
    const slow = `
import { test } from '@playwright/test';
test('slow', async () => { await new Promise((r) => setTimeout(r, 30_000)); });
`;
    const over = await runProbe(multiStep(slow), context({ maxResponseTime: 3_000, timeoutMs: 8_000 }));
    expect(over.result.hasFailures).toBe(true);
    expect(over.result.errorMessage).toMatch(/time|budget|3000/i);
  });

  it('runs a PLAYWRIGHT script with a page (and a BROWSER check with a script like it): page metrics, URL scrubbed', async () => {
    const script = `
import { test, expect } from '@playwright/test';
test('home', async ({ page }) => {
  await page.goto(process.env.TARGET + '/home?token=' + process.env.API_TOKEN);
  await expect(page.locator('body')).toContainText('ok');
});
`;
    for (const checkType of ['PLAYWRIGHT', 'BROWSER'] as const) {
      const { result } = await runProbe({ checkType, script, runtimeId }, context());
      expect(result.errorMessage).toBeUndefined();
      expect(result).toMatchObject({ checkType, hasFailures: false });
      expect(result.pages?.length).toBeGreaterThan(0);
      expect(result.pages?.[0]?.url).toContain('/home?token=********');
      expect(JSON.stringify(result)).not.toContain(SECRET);
    }
  });

  it('retries a failing script as the retry strategy says', async () => {
    const outcome = await runWithRetries(
      multiStep(failing),
      context(),
      { type: 'FIXED', maxRetries: 1, baseBackoffSeconds: 0, maxDurationSeconds: 600, sameRegion: true },
      async () => {},
    );
    expect(outcome.result).toMatchObject({ hasFailures: true, attempts: 2 });
  });
});

describe('script checks without a runner or a runtime', () => {
  it('fail with a message instead of running anywhere else', async () => {
    const definition: RunnableDefinition = { checkType: 'MULTI_STEP', script: passing, runtimeId: null };
    const none = await runProbe(definition, context({ scripts: undefined, runtimeId: installed[0] }));
    expect(none.result).toMatchObject({ hasFailures: true, errorMessage: expect.stringMatching(/no script runner/) });
    const noRuntime = await runProbe(definition, context());
    expect(noRuntime.result.errorMessage).toMatch(/no runtime/);
    const missing = await runProbe({ ...definition, runtimeId: '2019.01' }, context());
    expect(missing.result).toMatchObject({ hasFailures: true, runtimeId: '2019.01' });
    expect(missing.result.errorMessage).toMatch(/2019\.01/);
  });
});
