import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { ensureConsoleBuilt, launchChromium, signIn, watchConsole } from './browser.ts';

/**
 * Issue 23, items 2 and 10, in Debian's Chromium against a real Vigil: the overview's summary and
 * order, a heartbeat's schedule, a sparkline of one hour, the key's role label, and a 24 h chart of
 * minutes of runs that is not squeezed against its right edge.
 */
describe('console polish', () => {
  let vigil: TestVigil;
  let browser: Browser;
  let page: Page;
  let account: Awaited<ReturnType<typeof createAccount>>;
  const errors: string[] = [];
  const ids = { up: '', down: '', beat: '', steady: '' };

  beforeAll(async () => {
    ensureConsoleBuilt();
    vigil = await startVigil();
    account = await createAccount(vigil);
    const create = async (body: Record<string, unknown>) => (await account.owner.post('/v1/checks', body)).body.id;
    // Created in name order, so "failing first" is the console's doing, not the API's.
    ids.up = await create({ name: 'Alpha up', checkType: 'API', frequency: 5 });
    ids.beat = await create({
      name: 'Nightly backup',
      checkType: 'HEARTBEAT',
      heartbeat: { period: 1, periodUnit: 'days', grace: 30, graceUnit: 'minutes' },
    });
    ids.down = await create({ name: 'Zulu down', checkType: 'API', frequency: 5 });
    ids.steady = await create({ name: 'Steady', checkType: 'API', frequency: 60 });
    // A few minutes of runs: the p95 sparkline has one hour, the 24 h chart a handful of minutes.
    const now = Date.now();
    // All in one hour: in the first minutes of an hour they would fall in two, and draw a line.
    const hourStart = Math.floor(now / 3_600_000) * 3_600_000;
    const anchor = now - hourStart >= 7 * 60_000 ? now : hourStart - 1_000;
    const results = [ids.up, ids.down].flatMap((checkId) =>
      [6, 4, 2].map((minutesAgo) => ({
        id: randomUUID(),
        accountId: account.accountId,
        checkId,
        checkType: 'API',
        startedAt: new Date(anchor - minutesAgo * 60_000).toISOString(),
        runLocation: 'eu-west-1',
        hasFailures: checkId === ids.down,
        responseTime: 120 + minutesAgo,
        statusCode: checkId === ids.down ? 500 : 200,
      })),
    );
    // Steady: the same time in each of the last six hours, a flat sparkline.
    for (let hoursAgo = 1; hoursAgo <= 6; hoursAgo++)
      results.push({
        id: randomUUID(),
        accountId: account.accountId,
        checkId: ids.steady,
        checkType: 'API',
        startedAt: new Date(now - hoursAgo * 3_600_000).toISOString(),
        runLocation: 'eu-west-1',
        hasFailures: false,
        responseTime: 200,
        statusCode: 200,
      });
    const sent = await vigil.as(vigil.ingestKey).post('/v1/check-results', results);
    expect(sent.status, JSON.stringify(sent.body)).toBeLessThan(300);
    // Results reach the statuses through the bus: wait until both checks have one.
    const statusesOf = async () =>
      ((await account.owner.get('/v1/check-statuses')).body as { checkId: string }[]).filter(
        (s) => s.checkId === ids.up || s.checkId === ids.down || s.checkId === ids.steady,
      ).length;
    for (let tries = 0; (await statusesOf()) < 3; tries++) {
      if (tries > 60) throw new Error('the statuses never showed the results');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchConsole(page, errors);
    await signIn(page, vigil.url, account.ownerKey);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await vigil?.stop();
  }, 180_000);

  it('the overview sums up the checks by status and lists the failing ones first', async () => {
    await page.goto(`${vigil.url}/`);
    const rows = page.locator('table[aria-label=Checks] tbody tr');
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(4);
    const states = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-status')));
    expect(states[0]).toBe('failing');
    expect(await rows.first().getAttribute('data-check-id')).toBe(ids.down);
    const rank = ['failing', 'degraded', 'no data', 'passing'];
    expect(states.map((s) => rank.indexOf(s!))).toEqual([...states.map((s) => rank.indexOf(s!))].sort());

    const summary = page.locator('ul[aria-label="Checks by status"] li');
    const counts = Object.fromEntries(
      await summary.evaluateAll((lis) =>
        lis.map((li) => [li.getAttribute('data-status'), Number(li.querySelector('strong')?.textContent)]),
      ),
    );
    expect(counts).toEqual({ failing: 1, degraded: 0, 'no data': 1, passing: 2 });
    // A count filters the table to its status, and a second click clears it.
    await summary.filter({ hasText: 'failing' }).locator('button').click();
    await expect.poll(() => rows.count()).toBe(1);
    await summary.filter({ hasText: 'failing' }).locator('button').click();
    await expect.poll(() => rows.count()).toBe(4);
  });

  it('a heartbeat shows its period and grace, not a frequency; others their minutes', async () => {
    await page.goto(`${vigil.url}/`);
    const cell = (id: string) => page.locator(`tr[data-check-id="${id}"] td`).nth(3);
    await expect.poll(() => cell(ids.beat).textContent(), { timeout: 20_000 }).toBe('every 1 d, grace 30 min');
    expect(await cell(ids.up).textContent()).toBe('every 5 min');
    await page.goto(`${vigil.url}/checks/${ids.beat}`);
    await expect
      .poll(() => page.locator('.row .muted').first().textContent(), { timeout: 20_000 })
      .toContain('every 1 d, grace 30 min');
    expect(await page.locator('.row .muted').first().textContent()).not.toContain('10 min');
  });

  it('a p95 sparkline of one hour is a dot inside the drawing, big enough to see', async () => {
    await page.goto(`${vigil.url}/`);
    const spark = page.locator(`tr[data-check-id="${ids.up}"] svg.spark`);
    await spark.waitFor({ timeout: 20_000 });
    const dot = spark.locator('circle');
    expect(await dot.count()).toBe(1);
    const [box, dotBox] = await Promise.all([spark.boundingBox(), dot.boundingBox()]);
    expect(dotBox!.width).toBeGreaterThanOrEqual(4);
    // Whole, not cut by the edge of the drawing.
    expect(dotBox!.x).toBeGreaterThanOrEqual(box!.x);
    expect(dotBox!.x + dotBox!.width).toBeLessThanOrEqual(box!.x + box!.width);
    expect(dotBox!.y).toBeGreaterThanOrEqual(box!.y);
    expect(dotBox!.y + dotBox!.height).toBeLessThanOrEqual(box!.y + box!.height);
  });

  it('a flat p95 sparkline is a line across the drawing, off its edges', async () => {
    await page.goto(`${vigil.url}/`);
    const spark = page.locator(`tr[data-check-id="${ids.steady}"] svg.spark`);
    await spark.waitFor({ timeout: 20_000 });
    const [box, line] = await Promise.all([spark.boundingBox(), spark.locator('path').boundingBox()]);
    expect(line!.width).toBeGreaterThan(box!.width / 5);
    // In the middle band of the drawing, where a 1.5 px stroke is not lost against the border.
    expect(line!.y).toBeGreaterThan(box!.y + box!.height / 4);
    expect(line!.y + line!.height).toBeLessThan(box!.y + (3 * box!.height) / 4);
  });

  it('Settings names the role of a user key for what it is', async () => {
    await page.goto(`${vigil.url}/settings`);
    const keys = page.locator('table[aria-label="API keys"] tbody tr');
    await keys.first().waitFor({ timeout: 20_000 });
    const text = (await keys.allTextContents()).join('\n');
    expect(text).not.toContain('your role');
    expect(text).toContain("its user's");
  });

  it('a 24 h chart of minutes of runs spreads them out instead of pinning them to the right edge', async () => {
    await page.goto(`${vigil.url}/checks/${ids.up}?range=24h`);
    const chart = page.locator('.chart');
    await expect.poll(() => chart.getAttribute('data-drawn'), { timeout: 30_000 }).toBe('true');
    const layout = await chart.evaluate((el) => {
      type Plot = {
        data: number[][];
        bbox: { left: number; width: number };
        scales: { x: { min: number; max: number } };
        valToPos: (value: number, scale: string, canvas: boolean) => number;
      };
      const u = (el as unknown as { __uplot: Plot }).__uplot;
      const first = u.data[0]![0]!;
      return {
        span: u.scales.x.max - u.scales.x.min,
        firstAt: (u.valToPos(first, 'x', true) - u.bbox.left) / u.bbox.width,
      };
    });
    // Ten 2-minute buckets at least, and far less than the day before the first run.
    expect(layout.span).toBeGreaterThanOrEqual(20 * 60);
    expect(layout.span).toBeLessThan(3600);
    expect(layout.firstAt).toBeLessThan(0.8);
    expect(errors).toEqual([]);
  });
});
