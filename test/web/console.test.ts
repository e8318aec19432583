import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { ensureConsoleBuilt, launchChromium, screenshots, seriousViolations, watchConsole } from './browser.ts';

type Account = Awaited<ReturnType<typeof createAccount>>;

/**
 * The console in Debian's Chromium against a real Vigil (embedded adapters) started here, with a
 * local HTTP target for the check and a local webhook receiver. Each flow of issue 15 is one test;
 * they share one signed-in page and run in order.
 */
describe('web console in a real browser', () => {
  let vigil: TestVigil;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let account: Account;
  let target: Server;
  let receiver: Server;
  let targetUrl = '';
  let receiverUrl = '';
  let targetStatus = 200;
  const received: IncomingMessage[] = [];
  const bodies: { id: string; body: string }[] = [];
  const errors: string[] = [];
  const violations: Record<string, string[]> = {};
  let checkId = '';
  let otherCheckId = '';

  const listen = async (server: Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const audit = async (name: string) => {
    violations[name] = await seriousViolations(page);
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    target = createServer((request, response) => {
      response.writeHead(targetStatus, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ ok: targetStatus < 400 }));
    });
    receiver = createServer((request, response) => {
      received.push(request);
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        bodies.push({ id: String(request.headers['webhook-id'] ?? ''), body });
        response.writeHead(200).end('thanks');
      });
    });
    targetUrl = `${await listen(target)}/health`;
    receiverUrl = `${await listen(receiver)}/hook`;
    vigil = await startVigil({ env: { VIGIL_RUNNER_ALLOW_PRIVATE: 'true', VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true' } });
    account = await createAccount(vigil);
    otherCheckId = (
      await account.owner.post('/v1/checks', { name: 'Unlisted billing', checkType: 'API', frequency: 5 })
    ).body.id;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    watchConsole(page, errors);
  });

  afterAll(async () => {
    await browser?.close();
    await vigil?.stop();
    await new Promise((resolve) => target?.close(resolve));
    await new Promise((resolve) => receiver?.close(resolve));
  }, 180_000);

  it('1. signs in with a key, kept in sessionStorage only', async () => {
    await page.goto(`${vigil.url}/`);
    await page.waitForURL(/\/login\?next=/);
    await audit('login');
    await screenshots(page, 'login', 'input[name=apiKey]');
    await page.fill('input[name=apiKey]', account.ownerKey);
    await page.click('button[type=submit]');
    await page.locator('h1', { hasText: 'Checks' }).waitFor();
    const stored = await page.evaluate(() => ({
      session: (globalThis as any).sessionStorage.getItem('vigil.session'),
      local: JSON.stringify((globalThis as any).localStorage),
    }));
    expect(stored.session).toContain(account.ownerKey);
    expect(stored.local).not.toContain(account.ownerKey);
  }, 180_000);

  it('2. creates an API check on a local endpoint, runs it, and the chart draws its points', async () => {
    await page.goto(`${vigil.url}/checks/new`);
    // Screenshots reload the page, so they come before the form is filled.
    await audit('editor');
    await screenshots(page, 'editor', 'input[name=name]');
    await page.fill('input[name=name]', 'Orders API');
    await page.fill('input[name=url]', targetUrl);
    await page.click('button:has-text("Run")');
    await expect
      .poll(() => page.locator('[data-testid=test-run]').textContent(), { timeout: 30_000 })
      .toMatch(/Passed/);
    await audit('editor');
    await screenshots(page, 'editor', 'input[name=name]');
    // The form is filled again before saving: under load the first fill can land before the page's handlers.
    await page.fill('input[name=name]', 'Orders API');
    await page.fill('input[name=url]', targetUrl);
    await page.click('button:has-text("Save")');
    const where = async () =>
      `${new URL(page.url()).pathname} ${(await page.locator('.error-box, .field-error').allTextContents()).join('|')}`;
    await expect.poll(where, { timeout: 30_000 }).toMatch(/^\/checks\/[0-9a-f-]{36} $/);
    checkId = page.url().split('/').at(-1)!;
    for (let i = 0; i < 3; i++) {
      await page.click('button:has-text("Run now")');
      await expect
        .poll(() => page.locator('[role=status]').first().textContent(), { timeout: 30_000 })
        .toMatch(/run\(s\)/);
    }
    // A range not yet asked for, so the analytics cache holds nothing older than these runs.
    await page.goto(`${vigil.url}/checks/${checkId}?range=7d`);
    const chart = page.locator('.chart');
    await expect.poll(async () => chart.getAttribute('data-points'), { timeout: 20_000 }).not.toBeNull();
    const series = await chart.evaluate((el) => {
      const plot = (el as unknown as { __uplot: { data: (number | null)[][]; series: { label?: string }[] } }).__uplot;
      return { labels: plot.series.slice(1).map((s) => s.label), data: plot.data };
    });
    expect(series.labels).toEqual(['p50', 'p95', 'p99']);
    const measured = series.data[2]!.filter((v): v is number => v !== null);
    expect(measured.length).toBeGreaterThan(0);
    // The points are the API's own numbers for this window.
    const api = await account.owner.get(
      `/v1/analytics/api-checks/${checkId}?quickRange=last7Days&aggregationInterval=15&metrics=responseTime_p95`,
    );
    const apiValues = api.body.series[0].data
      .map((p: Record<string, number | null>) => p.responseTime_p95)
      .filter((v: number | null) => v !== null);
    expect(measured).toEqual(apiValues);
    await page.locator('table[aria-label=Runs] tbody tr').first().waitFor();
    // At least the three triggered runs (the scheduler may have added its own).
    expect(await page.locator('table[aria-label=Runs] tbody tr').count()).toBeGreaterThanOrEqual(3);
    await audit('check');
    await screenshots(page, 'check', '.chart[data-points]');
  }, 180_000);

  it('3. turns the status red through SSE when the endpoint fails, without a reload', async () => {
    await page.goto(`${vigil.url}/`);
    const row = page.locator(`tr[data-check-id="${checkId}"]`);
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 20_000 }).toBe('passing');
    await page.locator('text=Live').waitFor({ timeout: 20_000 });
    await page.evaluate(() => ((globalThis as unknown as { marker: string }).marker = 'no reload'));
    targetStatus = 500;
    const run = await account.owner.post(`/v1/checks/${checkId}/trigger`);
    expect(run.body.results[0].result.hasFailures).toBe(true);
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 20_000 }).toBe('failing');
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: string }).marker)).toBe('no reload');
    await audit('overview');
    await screenshots(page, 'overview', `tr[data-check-id="${checkId}"]`);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${(await import('./browser.ts')).SCREENSHOTS}/overview-phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 180_000);

  it('4. opens the run drawer with timings, assertions, error and SSL', async () => {
    await page.goto(`${vigil.url}/checks/${checkId}`);
    await page.locator('table[aria-label=Runs] tbody tr').first().click();
    const drawer = page.locator('aside.drawer');
    await drawer.waitFor();
    await expect.poll(() => drawer.textContent(), { timeout: 10_000 }).toMatch(/Failed/);
    expect(await drawer.locator('[data-testid=run-error]').textContent()).toMatch(/500/);
    expect(await drawer.locator('.waterfall .seg').count()).toBeGreaterThan(0);
    // The assertion's outcome is the stored one: the runner's verdict and the value it saw.
    const failed = drawer.locator('li[data-outcome=failed]');
    expect(await failed.count()).toBe(1);
    expect(await failed.textContent()).toMatch(/STATUS_CODE EQUALS 200.*actual 500/);
    expect(page.url()).toMatch(/[?&]run=[0-9a-f-]{36}/);
    const runId = new URL(page.url()).searchParams.get('run')!;
    const stored = await account.owner.get(`/v1/check-results/${checkId}/${runId}`);
    expect(stored.body.assertions).toMatchObject([
      { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', passed: false, actual: '500' },
    ]);
    await audit('run-drawer');
    await screenshots(page, 'run-drawer', 'aside.drawer [data-testid=run-error]');
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });
  }, 180_000);

  it('5. creates a webhook channel: template error at its line, test send, and a replayed alert delivery reaches the receiver and the log', async () => {
    await page.goto(`${vigil.url}/alert-channels/new`);
    await page.fill('input[name=name]', 'Ops hook');
    await page.fill('input[name=url]', receiverUrl);
    await page.fill('textarea[name=template]', '{\n  "check": "{{CHECK_NAME}}",\n  {{#if}}\n}');
    await expect
      .poll(() => page.locator('[data-testid=template-error]').textContent(), { timeout: 10_000 })
      .toMatch(/Line 4, column 2/);
    await page.fill('textarea[name=template]', '{"check": "{{CHECK_NAME}}", "type": "{{ALERT_TYPE}}"}');
    await expect
      .poll(() => page.locator('[data-testid=preview-body]').textContent(), { timeout: 10_000 })
      .toMatch(/ALERT_FAILURE/);
    expect(await page.locator('[data-testid=template-error]').textContent()).toBe('');
    await page.click('button:has-text("Save")');
    await page.waitForURL(/\/alert-channels\/[0-9a-f-]{36}$/);
    await page.click('button:has-text("Send test")');
    await expect
      .poll(() => page.locator('[data-testid=test-outcome]').textContent(), { timeout: 30_000 })
      .toMatch(/delivered/);
    const rows = page.locator('table[aria-label=Deliveries] tbody tr');
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    // A test send is not an alert and cannot be replayed.
    expect(await rows.first().locator('button:has-text("Replay")').count()).toBe(0);

    // A real alert: subscribe the channel to the failing check, then let the check recover.
    const channelId = page.url().split('/').at(-1)!;
    const subscribed = await account.owner.put(`/v1/alert-channels/${channelId}/subscriptions`, { checkId });
    expect(subscribed.status, JSON.stringify(subscribed.body)).toBe(200);
    targetStatus = 200;
    expect((await account.owner.post(`/v1/checks/${checkId}/trigger`)).body.results[0].result.hasFailures).toBe(false);
    await expect
      .poll(() => bodies.filter((b) => b.body.includes('ALERT_RECOVERY')).length, { timeout: 30_000 })
      .toBe(1);
    const recovery = bodies.find((b) => b.body.includes('ALERT_RECOVERY'))!;
    expect(recovery.id).not.toBe('');
    const first = page.locator(`tr[data-delivery-id="${recovery.id}"][data-attempt="1"]`);
    await expect
      .poll(
        async () => {
          await page.click('button:has-text("Refresh")');
          return first.count();
        },
        { timeout: 20_000 },
      )
      .toBe(1);
    await first.locator('button:has-text("Replay")').click();
    // The replay reaches the receiver with the same delivery id, and the log shows its attempt.
    await expect.poll(() => bodies.filter((b) => b.id === recovery.id).length, { timeout: 30_000 }).toBe(2);
    expect(bodies.filter((b) => b.id === recovery.id)[1]!.body).toBe(recovery.body);
    const replayed = page.locator(`tr[data-delivery-id="${recovery.id}"][data-attempt="2"]`);
    await expect
      .poll(
        async () => {
          await page.click('button:has-text("Refresh")');
          return replayed.getAttribute('data-outcome');
        },
        { timeout: 20_000 },
      )
      .toBe('delivered');
    expect(await page.locator('[role=status]', { hasText: 'Replay of' }).count()).toBe(1);
    await audit('channel');
    await screenshots(page, 'channel', 'textarea[name=template]');
  }, 180_000);

  it('6. a READ_ONLY key sees no edit controls', async () => {
    // The owner sees the links the READ_ONLY user must not: the assertions below are not vacuous.
    for (const [path, link] of [
      ['/alert-channels', 'New channel'],
      ['/maintenance', 'New window'],
    ] as const) {
      await page.goto(`${vigil.url}${path}`);
      await page.locator(`a:has-text("${link}")`).waitFor();
    }
    const invited = await account.owner.post('/v1/users', {
      email: `ro-${randomUUID()}@example.com`,
      role: 'READ_ONLY',
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const readOnly = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const ro = await readOnly.newPage();
    watchConsole(ro, errors);
    await ro.goto(`${vigil.url}/login`);
    await ro.fill('input[name=apiKey]', invited.body.apiKey.key);
    await ro.click('button[type=submit]');
    await ro.locator(`tr[data-check-id="${checkId}"]`).waitFor();
    expect(await ro.locator('a:has-text("New check")').count()).toBe(0);
    await ro.goto(`${vigil.url}/checks/${checkId}`);
    await ro.locator('h1').waitFor();
    await ro.locator('table[aria-label=Runs] tbody tr').first().waitFor();
    expect(await ro.locator('a:has-text("Edit"), button:has-text("Run now")').count()).toBe(0);
    await ro.goto(`${vigil.url}/alert-channels`);
    await ro.locator('table[aria-label="Alert channels"] tbody tr').first().waitFor();
    expect(await ro.locator('a:has-text("New channel")').count()).toBe(0);
    await ro.goto(`${vigil.url}/maintenance`);
    await ro.locator('h1', { hasText: 'Maintenance' }).waitFor();
    await ro.locator('table[aria-label="Maintenance windows"]').waitFor();
    expect(await ro.locator('a:has-text("New window")').count()).toBe(0);
    await ro.goto(`${vigil.url}/variables`);
    await ro.locator('h1').waitFor();
    expect(await ro.locator('button:has-text("Add variable")').count()).toBe(0);
    await readOnly.close();
  }, 180_000);

  it('7. creates a status page and opens it with no key: only the listed checks', async () => {
    const slug = `orders-${randomUUID().slice(0, 8)}`;
    await page.goto(`${vigil.url}/status-pages`);
    await page.fill('input[name=slug]', slug);
    await page.fill('input[name=title]', 'Acme status');
    await page.locator('label', { hasText: 'Orders API' }).locator('input[type=checkbox]').check();
    await page.click('button:has-text("Create status page")');
    await page.locator(`a:has-text("/status/${slug}")`).waitFor();
    await audit('status-pages');
    await screenshots(page, 'status-pages', `a:has-text("/status/${slug}")`);
    const anonymous = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const pub = await anonymous.newPage();
    watchConsole(pub, errors);
    const response = await pub.goto(`${vigil.url}/status/${slug}`);
    expect(response?.status()).toBe(200);
    const html = await pub.content();
    expect(html).toContain('Orders API');
    for (const hidden of ['Unlisted billing', otherCheckId, checkId, targetUrl, account.accountId])
      expect(html).not.toContain(hidden);
    expect(await pub.locator('.bar li').count()).toBe(90);
    violations['public-status'] = await seriousViolations(pub);
    await screenshots(pub, 'public-status', '.bar');
    await anonymous.close();
  }, 180_000);

  it('other pages: variables and settings pass axe; no page logged a script error', async () => {
    for (const [name, path, ready] of [
      ['variables', '/variables', 'table[aria-label=Variables]'],
      ['settings', '/settings', 'table[aria-label="API keys"] tbody tr'],
      ['channels', '/alert-channels', 'table[aria-label="Alert channels"] tbody tr'],
    ] as const) {
      await page.goto(`${vigil.url}${path}`);
      await page.locator(ready).first().waitFor();
      await audit(name);
      await screenshots(page, name, ready);
    }
    expect(violations).toEqual(Object.fromEntries(Object.keys(violations).map((k) => [k, []])));
    expect(errors).toEqual([]);
  });
});
