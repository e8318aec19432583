import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { ensureConsoleBuilt, launchChromium, screenshots, seriousViolations, signIn, watchConsole } from './browser.ts';

/**
 * Maintenance windows in the console, in Debian's Chromium against a real Vigil. The browser runs
 * in Asia/Kolkata (UTC+05:30, no daylight saving), so a local time typed into the form and the UTC
 * the API stores differ, and a conversion done the wrong way round shows. A window made in the
 * form is listed (local time, UTC beside and on hover) and shades the chart of the check it covers
 * by tag, and not the chart of a check it does not cover.
 */
describe('maintenance windows in the console', () => {
  let vigil: TestVigil;
  let browser: Browser;
  let page: Page;
  let target: Server;
  let account: Awaited<ReturnType<typeof createAccount>>;
  const errors: string[] = [];
  const violations: Record<string, string[]> = {};
  let coveredId = '';
  let otherId = '';
  let windowId = '';
  // Whole minutes: a datetime-local input holds no seconds.
  const startMs = Math.floor(Date.now() / 60_000) * 60_000 - 60 * 60_000;
  const endMs = startMs + 2 * 60 * 60_000;
  const KOLKATA_MS = (5 * 60 + 30) * 60_000;
  /** What a datetime-local input shows for a UTC instant, in Kolkata. */
  const kolkata = (ms: number) => new Date(ms + KOLKATA_MS).toISOString().slice(0, 16);

  const audit = async (name: string) => {
    violations[name] = await seriousViolations(page);
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    target = createServer((_request, response) => response.writeHead(200).end('ok'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/health`;
    vigil = await startVigil({ env: { VIGIL_RUNNER_ALLOW_PRIVATE: 'true' } });
    account = await createAccount(vigil);
    const check = (name: string, tags: string[]) =>
      account.owner.post('/v1/checks', { name, checkType: 'API', frequency: 60, tags, request: { url } });
    coveredId = (await check('Orders DB', ['db'])).body.id;
    otherId = (await check('Storefront', ['web'])).body.id;
    // A run, so the covered chart has a point (manual runs are never paused).
    expect((await account.owner.post(`/v1/checks/${coveredId}/trigger`)).status).toBe(200);
    browser = await launchChromium();
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      timezoneId: 'Asia/Kolkata',
      locale: 'en-GB',
    });
    page = await context.newPage();
    watchConsole(page, errors);
    await signIn(page, vigil.url, account.ownerKey);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await vigil?.stop();
    if (target) await new Promise((resolve) => target.close(resolve));
  }, 180_000);

  it('creates a window in local time from "New window"; the API holds UTC; the list shows both', async () => {
    await page.goto(`${vigil.url}/`);
    await page.click('nav a:has-text("Maintenance")');
    await page.locator('h1', { hasText: 'Maintenance' }).waitFor();
    await page.click('a:has-text("New window")');
    await page.locator('h1', { hasText: 'New maintenance window' }).waitFor();
    await audit('maintenance-new');
    await screenshots(page, 'maintenance-new', 'input[name=name]');
    await page.fill('input[name=name]', 'DB upgrade');
    await page.fill('input[name=startsAt]', kolkata(startMs));
    await page.fill('input[name=endsAt]', kolkata(endMs));
    await page.fill('input[name=tags]', 'db');
    // The form says what the local time is in UTC, and which checks the tags cover.
    expect(await page.locator('[data-testid=startsAt-utc]').textContent()).toBe(utc(startMs));
    await expect.poll(() => page.locator('[data-testid=covered]').textContent()).toBe('Covers 1 check: Orders DB');
    await page.click('button:has-text("Create window")');
    await page.waitForURL(/\/maintenance$/);

    const row = page.locator('table[aria-label="Maintenance windows"] tbody tr', { hasText: 'DB upgrade' });
    await row.waitFor();
    windowId = (await row.getAttribute('data-window-id'))!;
    const stored = await account.owner.get(`/v1/maintenance-windows/${windowId}`);
    expect(stored.body).toMatchObject({
      name: 'DB upgrade',
      tags: ['db'],
      checkIds: [],
      startsAt: new Date(startMs).toISOString(),
      endsAt: new Date(endMs).toISOString(),
      repeatUnit: null,
      pauseRuns: true,
      activeNow: true,
    });
    const local = row.locator('[data-testid=window-local]');
    expect(await local.textContent()).toContain(kolkata(startMs).slice(11));
    expect(await local.getAttribute('title')).toBe(utcSpan(startMs, endMs));
    expect(await row.locator('[data-testid=window-utc]').textContent()).toBe(utcSpan(startMs, endMs));
    expect(await row.getAttribute('data-active')).toBe('true');
    expect(await row.locator('td').allTextContents()).toEqual([
      'DB upgrade',
      expect.any(String),
      'Once',
      'tag db',
      'Skipped',
      'Active now',
    ]);
    await audit('maintenance');
    await screenshots(page, 'maintenance', 'table[aria-label="Maintenance windows"] tbody tr');
  }, 180_000);

  it('shades the occurrence on the chart of the check it covers, and not on another', async () => {
    await page.goto(`${vigil.url}/checks/${coveredId}?range=24h`);
    const chart = page.locator('.chart[data-bands="1"]');
    await chart.waitFor({ timeout: 30_000 });
    const legend = page.locator('[data-testid=maintenance-bands] li');
    expect(await legend.count()).toBe(1);
    expect(await legend.textContent()).toContain('Maintenance: DB upgrade');
    expect(await legend.getAttribute('title')).toBe(utcSpan(startMs, endMs));
    // The band is on the canvas: just inside its start the plot is shaded, just before it, not.
    const shaded = await chart.evaluate((el, start) => {
      type Plot = {
        bbox: { left: number; top: number; width: number; height: number };
        ctx: { getImageData: (x: number, y: number, w: number, h: number) => { data: Uint8ClampedArray } };
        valToPos: (value: number, scale: string, canvas: boolean) => number;
      };
      const u = (el as unknown as { __uplot: Plot }).__uplot;
      const edge = u.valToPos(start / 1000, 'x', true);
      const alpha = (x: number, y: number) => u.ctx.getImageData(Math.round(x), Math.round(y), 1, 1).data[3]!;
      const rows = [0.15, 0.35, 0.55, 0.75, 0.95].map((f) => u.bbox.top + f * u.bbox.height);
      // A point is painted when it and the pixels 3 px above and below it are: the band covers all
      // three, while a horizontal grid or series line that happens to lie on the row covers one.
      const painted = (x: number, y: number) => [-3, 0, 3].every((dy) => alpha(x, y + dy) > 0);
      // A row is shaded when most of four points across it are painted: a vertical line paints one.
      const shaded = (xs: number[], y: number) => xs.filter((x) => painted(x, y)).length >= 3;
      return {
        inside: rows.filter((y) =>
          shaded(
            [6, 14, 22, 30].map((dx) => edge + dx),
            y,
          ),
        ).length,
        outside: rows.filter((y) =>
          shaded(
            [40, 48, 56, 64].map((dx) => edge - dx),
            y,
          ),
        ).length,
        inPlot: edge > u.bbox.left && edge < u.bbox.left + u.bbox.width,
      };
    }, startMs);
    expect(shaded).toEqual({ inside: 5, outside: 0, inPlot: true });
    await audit('check-with-maintenance');
    await screenshots(page, 'check-maintenance', '.chart[data-bands="1"]');

    await page.goto(`${vigil.url}/checks/${otherId}?range=24h`);
    await page.locator('.chart[data-bands]').waitFor({ timeout: 30_000 });
    // The windows load after the analytics: give them the time to arrive before asserting none.
    await page.waitForTimeout(1000);
    expect(await page.locator('.chart').getAttribute('data-bands')).toBe('0');
    expect(await page.locator('[data-testid=maintenance-bands]').count()).toBe(0);
  }, 180_000);

  it('edits the window with its local times kept, then deletes it', async () => {
    await page.goto(`${vigil.url}/maintenance`);
    await page.click(`a:has-text("DB upgrade")`);
    await page.locator('h1', { hasText: 'DB upgrade' }).waitFor();
    // The stored UTC comes back as the same local time it was typed in.
    expect(await page.locator('input[name=startsAt]').inputValue()).toBe(kolkata(startMs));
    expect(await page.locator('input[name=endsAt]').inputValue()).toBe(kolkata(endMs));
    await page.fill('input[name=name]', 'DB upgrade, weekly');
    await page.selectOption('select[name=repeatUnit]', 'WEEK');
    await page.uncheck('input[name=pauseRuns]');
    await audit('maintenance-edit');
    await page.click('button:has-text("Save")');
    await page.waitForURL(/\/maintenance$/);
    const row = page.locator(`tr[data-window-id="${windowId}"]`);
    await row.waitFor();
    expect(await row.locator('td').allTextContents()).toEqual([
      'DB upgrade, weekly',
      expect.any(String),
      'Every week',
      'tag db',
      'Run, no alerts',
      'Active now',
    ]);
    expect((await account.owner.get(`/v1/maintenance-windows/${windowId}`)).body).toMatchObject({
      startsAt: new Date(startMs).toISOString(),
      repeatUnit: 'WEEK',
      repeatInterval: 1,
      pauseRuns: false,
    });

    // The API's refusal shows at its field.
    await page.click('a:has-text("DB upgrade, weekly")');
    await page.locator('input[name=endsAt]').waitFor();
    await page.fill('input[name=endsAt]', kolkata(startMs - 60_000));
    await page.click('button:has-text("Save")');
    await expect
      .poll(() => page.locator('label[data-field=endsAt] .field-error').textContent(), { timeout: 20_000 })
      .toMatch(/must be after startsAt/);

    await page.click('button:has-text("Delete")');
    await page.click('button:has-text("Yes, delete")');
    await page.waitForURL(/\/maintenance$/);
    await page.locator('text=No maintenance windows yet.').waitFor();
    expect((await account.owner.get(`/v1/maintenance-windows/${windowId}`)).status).toBe(404);

    expect(violations).toEqual(Object.fromEntries(Object.keys(violations).map((k) => [k, []])));
    expect(errors).toEqual([]);
  }, 180_000);
});

const pad = (n: number) => String(n).padStart(2, '0');
/** `2026-12-01 22:00 UTC`, as the console prints UTC. */
function utc(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}
function utcSpan(from: number, to: number): string {
  const [a, b] = [utc(from), utc(to)];
  return a.slice(0, 10) === b.slice(0, 10) ? `${a.slice(0, 16)}–${b.slice(11)}` : `${a} – ${b}`;
}
