import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { ensureConsoleBuilt, launchChromium, screenshots, seriousViolations, signIn, watchConsole } from './browser.ts';

/**
 * The console's channel pages for types other than WEBHOOK, in Debian's Chromium against a real
 * Vigil: a Slack and a PagerDuty channel made through "New channel", read back through the API;
 * the PagerDuty key is write-only, and a test send to a receiver on loopback
 * (VIGIL_PAGERDUTY_EVENTS_URL) shows the key the server holds before and after an edit.
 */
describe('alert channel types in the console', () => {
  let vigil: TestVigil;
  let browser: Browser;
  let page: Page;
  let receiver: Server;
  let account: Awaited<ReturnType<typeof createAccount>>;
  const routingKeys: string[] = [];
  const errors: string[] = [];
  const violations: Record<string, string[]> = {};
  const SLACK_URL = 'https://hooks.slack.com/services/T000/B000/XXXX';
  const PD_KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
  let pagerId = '';
  let slackId = '';

  const audit = async (name: string) => {
    violations[name] = await seriousViolations(page);
  };
  /** The id of the channel the page shows, once saving has navigated to it. */
  const savedId = async () => {
    const where = async () =>
      `${new URL(page.url()).pathname} ${(await page.locator('.error-box, .field-error').allTextContents()).join('|')}`;
    await expect.poll(where, { timeout: 30_000 }).toMatch(/^\/alert-channels\/[0-9a-f-]{36} $/);
    return page.url().split('/').at(-1)!;
  };
  const pick = async (type: string, heading: string) => {
    await page.goto(`${vigil.url}/alert-channels/new`);
    await page.selectOption('select[name=type]', type);
    await page.locator('h1', { hasText: heading }).waitFor();
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    receiver = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        routingKeys.push(String((JSON.parse(body) as { routing_key?: string }).routing_key));
        response.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"success"}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const events = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v2/enqueue`;
    vigil = await startVigil({ env: { VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true', VIGIL_PAGERDUTY_EVENTS_URL: events } });
    account = await createAccount(vigil);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchConsole(page, errors);
    await signIn(page, vigil.url, account.ownerKey);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await vigil?.stop();
    if (receiver) await new Promise((resolve) => receiver.close(resolve));
  }, 180_000);

  it('creates a Slack channel from "New channel"; the API holds its fields', async () => {
    await page.goto(`${vigil.url}/alert-channels`);
    await page.click('a:has-text("New channel")');
    await page.locator('select[name=type]').waitFor();
    expect(await page.locator('select[name=type]').inputValue()).toBe('WEBHOOK');
    await pick('SLACK', 'New Slack channel');
    // Screenshots reload the page: the type comes back from the URL.
    await screenshots(page, 'channel-new-slack', 'input[name=channel]');
    await page.fill('input[name=name]', 'Team chat');
    await page.fill('input[name=url]', SLACK_URL);
    await page.fill('input[name=channel]', '#alerts');
    await page.check('input[name=sendDegraded]');
    await audit('new-slack');
    await page.click('button:has-text("Save")');
    slackId = await savedId();
    const stored = await account.owner.get(`/v1/alert-channels/${slackId}`);
    expect(stored.body).toMatchObject({
      type: 'SLACK',
      config: { name: 'Team chat', url: SLACK_URL, channel: '#alerts' },
      sendFailure: true,
      sendRecovery: true,
      sendDegraded: true,
    });
    // The saved channel opens in the Slack editor with its values.
    await page.locator('h1', { hasText: 'Team chat' }).waitFor();
    expect(await page.locator('input[name=channel]').inputValue()).toBe('#alerts');
  }, 180_000);

  it('creates a PagerDuty channel: the API names a bad key at its field, the key is write-only and kept on edit', async () => {
    await pick('PAGERDUTY', 'New PagerDuty channel');
    await page.fill('input[name=name]', 'Pager');
    await page.fill('input[name=serviceKey]', 'too-short');
    await page.fill('input[name=serviceName]', 'Checkout');
    await page.click('button:has-text("Save")');
    const keyError = page.locator('label[data-field="config.serviceKey"] .field-error');
    await expect.poll(() => keyError.textContent(), { timeout: 20_000 }).toMatch(/32-character/);
    expect(new URL(page.url()).pathname).toBe('/alert-channels/new');
    await audit('new-pagerduty-error');

    await page.fill('input[name=serviceKey]', PD_KEY);
    await page.click('button:has-text("Save")');
    pagerId = await savedId();
    const stored = await account.owner.get(`/v1/alert-channels/${pagerId}`);
    expect(stored.body).toMatchObject({
      type: 'PAGERDUTY',
      config: { name: 'Pager', serviceName: 'Checkout', serviceKey: '********' },
    });

    // The editor shows that a key is set, never the key.
    const key = page.locator('input[name=serviceKey]');
    await page.locator('h1', { hasText: 'Pager' }).waitFor();
    expect(await key.inputValue()).toBe('');
    expect(await key.getAttribute('type')).toBe('password');
    expect(await key.getAttribute('placeholder')).toBe('set: leave empty to keep it');
    expect(await page.content()).not.toContain(PD_KEY);
    await page.click('button:has-text("Send test")');
    await expect
      .poll(() => page.locator('[data-testid=test-outcome]').textContent(), { timeout: 30_000 })
      .toMatch(/delivered/);
    expect(routingKeys.at(-1)).toBe(PD_KEY);
    await page.locator('table[aria-label=Deliveries] tbody tr').first().waitFor();
    await audit('edit-pagerduty');
    await screenshots(page, 'channel-pagerduty', 'input[name=serviceKey]');

    await page.fill('input[name=serviceName]', 'Payments');
    await page.click('button:has-text("Save")');
    await expect
      .poll(async () => (await account.owner.get(`/v1/alert-channels/${pagerId}`)).body.config.serviceName, {
        timeout: 20_000,
      })
      .toBe('Payments');
    const sent = await account.owner.post(`/v1/alert-channels/${pagerId}/test`);
    expect(sent.body.outcome).toBe('delivered');
    expect(routingKeys.at(-1)).toBe(PD_KEY);
  }, 180_000);

  it('saving a webhook in its editor keeps what the editor does not show (headers, send flags, secret)', async () => {
    const made = await account.owner.post('/v1/alert-channels', {
      config: {
        name: 'Made by the API',
        url: 'https://hooks.example.com/v',
        headers: [{ key: 'X-Team', value: 'ops' }],
        queryParameters: [{ key: 'source', value: 'vigil' }],
        webhookSecret: 'whsec_c2VjcmV0LWZvci10aGUtd2ViLXRlc3Q=',
      },
      sendDegraded: true,
      sendRecovery: false,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await page.goto(`${vigil.url}/alert-channels/${made.body.id}`);
    await page.locator('h1', { hasText: 'Made by the API' }).waitFor();
    await page.fill('input[name=name]', 'Renamed in the console');
    await page.click('button:has-text("Save")');
    await expect
      .poll(async () => (await account.owner.get(`/v1/alert-channels/${made.body.id}`)).body.config.name, {
        timeout: 20_000,
      })
      .toBe('Renamed in the console');
    expect((await account.owner.get(`/v1/alert-channels/${made.body.id}`)).body).toMatchObject({
      config: {
        headers: [{ key: 'X-Team', value: 'ops' }],
        queryParameters: [{ key: 'source', value: 'vigil' }],
        webhookSecret: '********',
      },
      sendDegraded: true,
      sendRecovery: false,
    });
  }, 180_000);

  it('lists each channel with its type and target; a READ_ONLY key sees no edit controls', async () => {
    await page.goto(`${vigil.url}/alert-channels`);
    const slack = page.locator(`tr[data-channel-id="${slackId}"]`);
    const pager = page.locator(`tr[data-channel-id="${pagerId}"]`);
    await pager.waitFor();
    expect(await slack.locator('td').allTextContents()).toEqual([
      'Team chat',
      'Slack',
      `#alerts via ${SLACK_URL}`,
      'failure, recovery, degraded',
      '–',
    ]);
    expect(await pager.locator('td').allTextContents()).toEqual([
      'Pager',
      'PagerDuty',
      'service Payments',
      'failure, recovery',
      '–',
    ]);
    await audit('channels');

    const invited = await account.owner.post('/v1/users', {
      email: `ro-${randomUUID()}@example.com`,
      role: 'READ_ONLY',
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const readOnly = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const ro = await readOnly.newPage();
    watchConsole(ro, errors);
    await signIn(ro, vigil.url, invited.body.apiKey.key);
    await ro.goto(`${vigil.url}/alert-channels`);
    await ro.locator(`tr[data-channel-id="${pagerId}"]`).waitFor();
    expect(await ro.locator('a:has-text("New channel")').count()).toBe(0);
    await ro.goto(`${vigil.url}/alert-channels/${pagerId}`);
    await ro.locator('input[name=serviceKey]').waitFor();
    expect(await ro.locator('input[name=serviceKey]').isDisabled()).toBe(true);
    expect(await ro.locator('button:has-text("Save"), button:has-text("Send test")').count()).toBe(0);
    await readOnly.close();

    expect(violations).toEqual(Object.fromEntries(Object.keys(violations).map((k) => [k, []])));
    expect(errors).toEqual([]);
  }, 180_000);
});
