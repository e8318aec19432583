import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test-processes';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { ensureConsoleBuilt, launchChromium, signIn, watchConsole } from './browser.ts';

/**
 * Issue 25 in the console: RESULT_LINK opened in a browser lands on the run view, where a failed
 * BROWSER run's screenshot shows in the drawer and its trace downloads.
 */
describe('run artifacts in the console', () => {
  let vigil: TestVigil;
  let target: Server;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    ensureConsoleBuilt();
    target = createServer((_req, res) => {
      res.statusCode = 500;
      res.setHeader('content-type', 'text/html');
      res.end('<body style="margin:0;background:#0a0"><h1>Checkout is down</h1></body>');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    vigil = await startVigil({ env: { VIGIL_ALLOW_PRIVATE_TARGETS: 'true' } });
    browser = await launchChromium();
    page = await (
      await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })
    ).newPage();
    watchConsole(page, errors);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await vigil?.stop();
    await new Promise<void>((resolve) => target?.close(() => resolve()));
  });

  it('shows the screenshot inline and offers trace.zip with the show-trace command', async () => {
    const account = await createAccount(vigil);
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
    const created = await account.owner.post('/v1/checks', {
      name: 'checkout page',
      checkType: 'BROWSER',
      activated: false,
      browser: { url },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const checkId = created.body.id as string;
    const triggered = await account.owner.post(`/v1/checks/${checkId}/trigger`);
    const resultId = triggered.body.results[0].result.id as string;
    await eventually(
      () => account.owner.get(`/v1/check-results/${checkId}/${resultId}`),
      (response) => response.status === 200,
      30_000,
      250,
    );

    await signIn(page, vigil.url, account.ownerKey);
    // Where an alert's RESULT_LINK points: a browser lands on the console's run view.
    await page.goto(`${vigil.url}/v1/check-results/${checkId}/${resultId}`);
    expect(new URL(page.url()).pathname).toBe(`/checks/${checkId}`);
    const drawer = page.locator('aside.drawer');
    await drawer.waitFor();
    const image = drawer.locator('img[data-testid=run-screenshot]');
    await image.waitFor({ timeout: 20_000 });
    // Decoded by the browser: a real image of the page's width, not a broken icon.
    await expect
      .poll(
        () =>
          image.evaluate((img) => [
            (img as { complete: boolean }).complete,
            (img as { naturalWidth: number }).naturalWidth,
          ]),
        { timeout: 10_000 },
      )
      .toEqual([true, 1280]);
    expect(await drawer.textContent()).toContain('npx playwright show-trace trace.zip');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      drawer.locator('[data-testid=download-trace]').click(),
    ]);
    expect(download.suggestedFilename()).toBe('trace.zip');
    expect(errors).toEqual([]);
  }, 120_000);
});
