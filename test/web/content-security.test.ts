import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startVigil, type TestVigil } from '#test-vigil';
import { ensureConsoleBuilt, launchChromium } from './browser.ts';

// Issue 21, hardening: the console and /docs carry a CSP (and the console refuses to be framed).
// A real browser holds them to it: both still render with no policy violation, and a frame of
// the console on another page stays empty.

let vigil: TestVigil;
let browser: Browser;

beforeAll(async () => {
  ensureConsoleBuilt();
  vigil = await startVigil();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await vigil?.stop();
});

async function open(path: string): Promise<{ page: Page; violations: string[] }> {
  const page = await browser.newPage();
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  // Page code as text: this file is typed for Node, not the DOM.
  await page.addInitScript({
    content:
      "document.addEventListener('securitypolicyviolation', (e) => console.error('Refused to (CSP) ' + e.violatedDirective + ' ' + e.blockedURI));",
  });
  const response = await page.goto(`${vigil.url}${path}`);
  expect(response?.status(), path).toBe(200);
  return { page, violations };
}

describe('content security policy in a browser', () => {
  it('/docs renders the API reference under its policy', async () => {
    const { page, violations } = await open('/docs');
    await page.waitForSelector('.swagger-ui .info .title', { timeout: 20_000 });
    expect(await page.locator('.swagger-ui .info .title').innerText()).toMatch(/Vigil/);
    await page.waitForSelector('.opblock-tag', { timeout: 20_000 });
    expect(violations).toEqual([]);
    await page.close();
  });

  it.each(['/', '/index.html'])('the console at %s renders under its policy', async (path) => {
    const { page, violations } = await open(path);
    await page.waitForFunction("(document.querySelector('#app')?.childElementCount ?? 0) > 0", undefined, {
      timeout: 20_000,
    });
    expect(violations).toEqual([]);
    await page.close();
  });

  it('the console cannot be framed by another page', async () => {
    const page = await browser.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/frame-ancestors/.test(message.text())) refused.push(message.text());
    });
    await page.setContent(`<iframe id="f" src="${vigil.url}/index.html"></iframe>`);
    await expect.poll(() => refused.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
    const appInFrame = frame
      ? await frame
          .locator('#app')
          .count()
          .catch(() => 0)
      : 0;
    expect(appInFrame).toBe(0);
    await page.close();
  });
});
