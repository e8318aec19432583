import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '#core';
import { createSandbox, type Sandbox } from '#sandbox';
import { createScriptRunner, type ScriptRunner, type ScriptRunRequest } from '#scripts';

// Real runs: each installed runtime's own Playwright Test, in the real sandbox, against a local
// HTTP target (loopback, so allowPrivate). A missing runtime or sandbox fails the suite.
const runtimesEnv = inject('runtimes');
const services = inject('services');
const installed = 'installed' in runtimesEnv ? runtimesEnv.installed : [];
const BIG = 'x'.repeat(20 * 1024);

let server: Server;
let base = '';
let sandbox: Sandbox;
let runner: ScriptRunner;
const received: { method: string; url: string; headers: Record<string, unknown>; body: string }[] = [];

beforeAll(async () => {
  if ('error' in runtimesEnv) throw new Error(runtimesEnv.error);
  if (installed.length === 0) throw new Error('no runtime is installed');
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url === '/page') {
        res.setHeader('content-type', 'text/html');
        res.end('<!doctype html><html><head><title>Local</title></head><body><h1>Hello page</h1></body></html>');
      } else if (req.url === '/big') {
        res.end(BIG);
      } else {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ok: true, url: req.url, method: req.method }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const logger = createLogger({ level: 'warn', name: 'scripts-test' });
  sandbox = createSandbox({ logger });
  const probe = await sandbox.probe();
  if (!probe.available) throw new Error(`sandbox unavailable: ${probe.reason}`);
  const chromiumPath = 'error' in services ? undefined : services.CHROMIUM_PATH;
  runner = createScriptRunner({
    sandbox,
    runtimesRoot: runtimesEnv.root,
    logger,
    ...(chromiumPath ? { chromiumPath } : {}),
  });
  expect(await runner.ready()).toEqual({ ok: true });
});

afterAll(async () => {
  await runner?.close();
  await sandbox?.close();
  await new Promise((resolve) => server?.close(resolve));
});

const request = (runtimeName: string, rest: Partial<ScriptRunRequest>): ScriptRunRequest => ({
  kind: 'MULTI_STEP',
  runtimeName,
  env: {},
  timeoutMs: 60_000,
  allowPrivate: true,
  ...rest,
});

describe.each(installed)('runtime %s', (runtimeName) => {
  it('runs an ESM MULTI_STEP script: steps, variables, logs, fetch, axios and capped request records', async () => {
    const script = `
import { test, expect } from '@playwright/test';
import axios from 'axios';
test('api flow', async ({ request }) => {
  await test.step('post a big body', async () => {
    const response = await request.post(process.env.TARGET + '/echo', {
      headers: { 'x-token': process.env.API_TOKEN },
      data: '${BIG}',
    });
    expect(response.status()).toBe(200);
  });
  await test.step('get a big response', async () => {
    const response = await request.get(process.env.TARGET + '/big');
    expect(response.ok()).toBe(true);
  });
  await test.step('fetch and axios', async () => {
    const viaFetch = await fetch(process.env.TARGET + '/fetch');
    const viaAxios = await axios.get(process.env.TARGET + '/axios');
    console.log('fetch', viaFetch.status, 'axios', viaAxios.status, 'token', process.env.API_TOKEN);
    console.log('server var', process.env.VIGIL_TEST_RUNNER_ONLY ?? 'absent');
  });
});`;
    // A variable of the runner's own process must not reach the script.
    process.env.VIGIL_TEST_RUNNER_ONLY = 'leaked';
    const outcome = await runner.run(request(runtimeName, { script, env: { TARGET: base, API_TOKEN: 'tok-123' } }));
    delete process.env.VIGIL_TEST_RUNNER_ONLY;
    expect(outcome.error).toBeUndefined();
    expect(outcome.passed).toBe(true);
    expect(outcome.steps.map((step) => [step.name, step.status])).toEqual([
      ['post a big body', 'passed'],
      ['get a big response', 'passed'],
      ['fetch and axios', 'passed'],
    ]);
    expect(outcome.logs).toContain('fetch 200 axios 200 token tok-123');
    expect(outcome.logs).toContain('server var absent');
    expect(received.some((r) => r.url === '/fetch')).toBe(true);
    expect(received.some((r) => r.url === '/axios')).toBe(true);
    const [post, get] = outcome.requests;
    expect(outcome.requests).toHaveLength(2);
    expect(post).toMatchObject({ method: 'POST', url: `${base}/echo`, status: 200, statusText: 'OK' });
    expect(post!.requestHeaders?.['x-token']).toBe('tok-123');
    expect(post!.requestBody).toHaveLength(16 * 1024);
    expect(JSON.parse(post!.responseBody!)).toEqual({ ok: true, url: '/echo', method: 'POST' });
    expect(post!.durationMs).toBeGreaterThan(0);
    expect(post!.timings?.total).toBe(post!.durationMs);
    expect(get).toMatchObject({ method: 'GET', url: `${base}/big`, status: 200 });
    expect(get!.responseBody).toHaveLength(16 * 1024);
    expect(get!.responseHeaders?.['content-length']).toBe(String(BIG.length));
  });

  it('runs the same in CommonJS, with an ESM-only package required', async () => {
    const script = `
const { test, expect } = require('@playwright/test');
const chai = require('chai');
test('cjs flow', async ({ request }) => {
  await test.step('get', async () => {
    const response = await request.get(process.env.TARGET + '/cjs');
    chai.expect(response.status()).to.equal(200);
    expect(await response.json()).toMatchObject({ url: '/cjs' });
  });
});`;
    const outcome = await runner.run(request(runtimeName, { script, env: { TARGET: base } }));
    expect(outcome.error).toBeUndefined();
    expect(outcome.passed).toBe(true);
    expect(outcome.steps).toEqual([{ name: 'get', status: 'passed', durationMs: expect.any(Number) }]);
    expect(outcome.requests.map((r) => r.url)).toEqual([`${base}/cjs`]);
  });

  it('runs an ES module that needs to stay one (top-level await), with a default import and nested steps', async () => {
    const script = `
import test, { expect } from '@playwright/test';
import { v4 } from 'uuid';
const settings = await (await fetch(process.env.TARGET + '/settings')).json();
test.describe('group', () => {
  test('nested', async ({ request }) => {
    await test.step('outer', async () => {
      await test.step('inner', async () => {
        expect(settings.url).toBe('/settings');
        expect((await request.get(process.env.TARGET + '/esm')).ok()).toBe(true);
      });
    });
    console.log('uuid', typeof v4());
  });
  test.skip('skipped', async () => {});
});`;
    const outcome = await runner.run(request(runtimeName, { script, env: { TARGET: base } }));
    expect(outcome.error).toBeUndefined();
    expect(outcome.passed).toBe(true);
    expect(outcome.steps.map((step) => [step.name, step.status])).toEqual([
      ['outer', 'passed'],
      ['outer › inner', 'passed'],
      ['group › skipped', 'skipped'],
    ]);
    expect(outcome.logs).toContain('uuid string');
  });

  it('runs TypeScript, and a failing expect names its step', async () => {
    const script = `
import { test, expect, type APIResponse } from '@playwright/test';
interface Body { ok: boolean; url: string }
test('typed', async ({ request }) => {
  let response: APIResponse | undefined;
  await test.step('fetch the item', async () => {
    response = await request.get(\`\${process.env.TARGET}/typed\`);
  });
  await test.step('check the status', async () => {
    const body = (await response!.json()) as Body;
    expect(body.ok).toBe(true);
    expect(response!.status(), 'status of /typed').toBe(201);
  });
  await test.step('never reached', async () => {});
});`;
    const outcome = await runner.run(request(runtimeName, { script, env: { TARGET: base } }));
    expect(outcome.passed).toBe(false);
    expect(outcome.error).toMatch(/^step "check the status" failed: status of \/typed; .*Expected: 201; Received: 200/);
    expect(outcome.steps.map((step) => [step.name, step.status])).toEqual([
      ['fetch the item', 'passed'],
      ['check the status', 'failed'],
    ]);
    expect(outcome.steps[1]!.error).toContain('201');
    expect(outcome.failedExpectations?.[0]).toMatchObject({ step: 'check the status' });
    expect(outcome.failedExpectations?.[0]?.message).toContain('Expected: 201');
  });

  it('runs a PLAYWRIGHT script on a local page and reports its page metrics', async () => {
    const script = `
import { test, expect } from '@playwright/test';
test('page', async ({ page }) => {
  await test.step('open the page', async () => {
    await page.goto(process.env.TARGET + '/page');
    await expect(page.locator('h1')).toHaveText('Hello page');
  });
  await test.step('call from the page context', async () => {
    const response = await page.request.get(process.env.TARGET + '/from-page');
    expect(response.status()).toBe(200);
  });
});`;
    const outcome = await runner.run(
      request(runtimeName, { kind: 'PLAYWRIGHT', script, env: { TARGET: base }, timeoutMs: 90_000 }),
    );
    expect(outcome.error).toBeUndefined();
    expect(outcome.passed).toBe(true);
    expect(outcome.steps.map((step) => step.name)).toEqual(['open the page', 'call from the page context']);
    expect(outcome.pages).toHaveLength(1);
    const [page] = outcome.pages;
    expect(page).toMatchObject({
      index: 0,
      url: `${base}/page`,
      consoleErrors: 0,
      networkErrors: 0,
      documentErrors: 0,
    });
    expect(page!.TTFB).toBeGreaterThanOrEqual(0);
    expect(page!.FCP).toBeGreaterThan(0);
    expect(page!.CLS).toBe(0);
  });

  it('runs a files-form suite: two spec files, a helper and a playwright.config', async () => {
    const files = [
      {
        path: 'playwright.config.ts',
        content: `import { defineConfig } from '@playwright/test';
export default defineConfig({ testDir: 'tests', retries: 3, workers: 4, use: { baseURL: process.env.TARGET } });`,
      },
      { path: 'tests/helper.ts', content: `export const itemPath = (id: number): string => '/items/' + id;` },
      {
        path: 'tests/first.spec.ts',
        content: `import { test, expect } from '@playwright/test';
import { itemPath } from './helper';
test('first', async ({ request }) => {
  await test.step('item 1', async () => expect((await request.get(itemPath(1))).status()).toBe(200));
});`,
      },
      {
        path: 'tests/second.spec.js',
        content: `const { test, expect } = require('@playwright/test');
test('second has no steps', async ({ request }) => {
  expect((await request.get('/items/2')).ok()).toBe(true);
});`,
      },
      { path: 'README.md', content: 'not a test' },
    ];
    const outcome = await runner.run(request(runtimeName, { kind: 'PLAYWRIGHT', files, env: { TARGET: base } }));
    expect(outcome.error).toBeUndefined();
    expect(outcome.passed).toBe(true);
    expect(outcome.steps.map((step) => [step.name, step.status]).sort()).toEqual([
      ['item 1', 'passed'],
      ['second has no steps', 'passed'],
    ]);
    expect(outcome.requests.map((r) => r.url).sort()).toEqual([`${base}/items/1`, `${base}/items/2`]);
  });
});

describe('failures that name their cause', () => {
  it('answers a runtime that is not installed with a clear error', async () => {
    const outcome = await runner.run(request('2019.01', { script: `require('@playwright/test')` }));
    expect(outcome.passed).toBe(false);
    expect(outcome.error).toBe('runtime 2019.01 is not installed on this runner');
  });

  it('stops a script that loops forever and names the step it was in', async () => {
    const script = `
import { test } from '@playwright/test';
test('spin', async () => {
  await test.step('warm up', async () => {});
  await test.step('loop forever', async () => { for (;;) {} });
});`;
    // Long enough for Playwright Test to reach the loop on a loaded machine.
    const outcome = await runner.run(request(installed[0]!, { script, timeoutMs: 25_000 }));
    expect(outcome.passed).toBe(false);
    expect(outcome.error).toBe('timed out after 25000 ms in step "loop forever"');
    expect(outcome.steps.map((step) => [step.name, step.status])).toEqual([
      ['warm up', 'passed'],
      ['loop forever', 'failed'],
    ]);
  });

  it('stops a run when its signal aborts', async () => {
    const script = `import { test } from '@playwright/test';\ntest('wait', async () => { await new Promise(() => {}); });`;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 2_000);
    const outcome = await runner.run(request(installed[0]!, { script, signal: controller.signal }));
    expect(outcome).toMatchObject({ passed: false, error: 'the run was cancelled' });
    expect(outcome.durationMs).toBeLessThan(30_000);
  });

  it('reports a syntax error in the script with its place', async () => {
    const outcome = await runner.run(
      request(installed[0]!, { script: `import { test } from '@playwright/test';\ntest('x', async () => {` }),
    );
    expect(outcome.passed).toBe(false);
    expect(outcome.error).toMatch(/^script error: check\.spec\.ts:2:\d+: /);
  });
});
