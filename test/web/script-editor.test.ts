import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { mkdirSync } from 'node:fs';
import { ensureConsoleBuilt, launchChromium, SCREENSHOTS, seriousViolations, signIn, watchConsole } from './browser.ts';

/**
 * The console's script editor in Debian's Chromium against a real Vigil: CodeMirror loads only
 * when a script check is edited, a pasted MULTI_STEP script runs through POST /v1/checks/test
 * (the real runner and sandbox) and its steps, requests and logs show; then it is saved.
 */
describe('script editor in a real browser', () => {
  let vigil: TestVigil;
  let browser: Browser;
  let page: Page;
  let target: Server;
  let base = '';
  let account: Awaited<ReturnType<typeof createAccount>>;
  const errors: string[] = [];
  const loaded: string[] = [];

  const script = (expected: string) => `import { test, expect } from '@playwright/test';

test('health', async ({ request }) => {
  await test.step('GET health', async () => {
    const response = await request.get('${base}/health');
    expect(response.status()).toBe(200);
    console.log('health answered', response.status());
  });
  await test.step('check body', async () => {
    const response = await request.get('${base}/health');
    expect((await response.json()).status).toBe('${expected}');
  });
});
`;

  /** Replaces the editor's text the way a paste does: one input, no auto-closed brackets or indentation. */
  const paste = async (text: string) => {
    await editor().click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(text);
  };
  const result = () => page.locator('[data-testid=test-run]');
  const editor = () => page.locator('[data-name=script][data-editor=ready] .cm-content');
  /** A fresh editor for a new MULTI_STEP check, so each test stands on its own. */
  const newScriptCheck = async () => {
    await page.goto(`${vigil.url}/checks/new`);
    await page.locator('input[name=name]').waitFor();
    await page.selectOption('select[name=checkType]', 'MULTI_STEP');
    await editor().waitFor({ timeout: 60_000 });
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    target = createServer((request, response) => {
      response.writeHead(request.url === '/health' ? 200 : 404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ status: 'ok' }));
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    vigil = await startVigil({ env: { VIGIL_RUNNER_ALLOW_PRIVATE: 'true' } });
    account = await createAccount(vigil);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    watchConsole(page, errors);
    page.on('request', (request) => loaded.push(new URL(request.url()).pathname));
    await signIn(page, vigil.url, account.ownerKey);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await vigil?.stop();
    if (target) await new Promise((resolve) => target.close(resolve));
  }, 180_000);

  it('loads CodeMirror only for a script check, with hints for test, page and request', async () => {
    await page.goto(`${vigil.url}/checks/new`);
    await page.locator('input[name=name]').waitFor();
    expect(loaded.filter((path) => path.includes('codemirror'))).toEqual([]);
    await page.selectOption('select[name=checkType]', 'MULTI_STEP');
    await editor().waitFor({ timeout: 60_000 });
    expect(loaded.filter((path) => path.includes('codemirror')).length).toBeGreaterThan(0);
    // The starter example is in the editor, and the runtime list came from GET /v1/runtimes.
    await expect.poll(() => editor().textContent()).toContain("test.step('GET /'");
    await expect.poll(() => page.locator('select[name=runtimeId] option').count()).toBeGreaterThan(1);
    await paste('await test.');
    // Ctrl+Space asks for the hints explicitly, as a user would (typing the dot opens them too).
    await page.keyboard.press('Control+Space');
    const hints = page.locator('.cm-tooltip-autocomplete');
    await hints.waitFor({ timeout: 30_000 });
    expect(await hints.textContent()).toContain('step');
    await page.keyboard.press('Escape');
    expect(await seriousViolations(page)).toEqual([]);
  }, 120_000);

  it('runs a pasted MULTI_STEP script and shows its steps, requests and logs', async () => {
    await newScriptCheck();
    await page.fill('input[name=name]', 'Health script');
    await paste(script('ok'));
    await page.click('button:has-text("Run")');
    await expect.poll(() => result().textContent(), { timeout: 120_000 }).toMatch(/Passed|Failed/);
    expect(await result().textContent()).toMatch(/Passed/);
    const steps = result().locator('[data-testid=script-steps] li');
    expect(await steps.allTextContents()).toEqual([
      expect.stringMatching(/GET health.*passed/),
      expect.stringMatching(/check body.*passed/),
    ]);
    expect(await result().locator('[data-testid=script-requests]').textContent()).toContain(`${base}/health`);
    expect(await result().locator('[data-testid=script-logs]').textContent()).toContain('health answered 200');
    expect(await seriousViolations(page)).toEqual([]);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: `${SCREENSHOTS}/script-editor-run.png`, fullPage: true });
  }, 180_000);

  it('a failing expect fails the run and names its step', async () => {
    await newScriptCheck();
    // A run needs a valid definition too: without a name the API answers 400 and nothing runs.
    await page.fill('input[name=name]', 'Degraded health script');
    await paste(script('degraded'));
    await page.click('button:has-text("Run")');
    await expect.poll(() => result().textContent(), { timeout: 120_000 }).toMatch(/Failed/);
    const failed = result().locator('[data-testid=script-steps] li[data-status=failed]');
    expect(await failed.count()).toBe(1);
    expect(await failed.textContent()).toMatch(/check body[\s\S]*degraded/);
  }, 180_000);

  it('saves the script check; the API returns the script as edited', async () => {
    await newScriptCheck();
    await page.fill('input[name=name]', 'Health script');
    await paste(script('ok'));
    await page.click('button:has-text("Save")');
    await expect.poll(() => new URL(page.url()).pathname, { timeout: 30_000 }).toMatch(/^\/checks\/[0-9a-f-]{36}$/);
    const id = new URL(page.url()).pathname.split('/').at(-1)!;
    const saved = await account.owner.get<{ checkType: string; script: string }>(`/v1/checks/${id}`);
    expect(saved.body).toMatchObject({ checkType: 'MULTI_STEP', script: script('ok') });
    // Opening it again puts the stored script back in the editor.
    await page.goto(`${vigil.url}/checks/${id}/edit`);
    await expect.poll(() => editor().textContent(), { timeout: 60_000 }).toContain("test.step('check body'");
    expect(errors).toEqual([]);
  }, 120_000);

  it('two edits inside one frame leave the page responsive and the editor holding the second', async () => {
    await newScriptCheck();
    await editor().click();
    await page.keyboard.press('ControlOrMeta+A');
    // What a Delete followed at once by a paste does when no frame falls between them, made
    // certain: the browser's own insertText command twice, the console re-rendering in between
    // (a macrotask) but not painting. The editor once fed the first text back from a stale
    // effect here, and the two texts then chased each other forever.
    const edited = page.evaluate(async () => {
      // Runs in the page: the test's own tsconfig has no DOM types.
      const doc = (globalThis as unknown as { document: { execCommand(c: string, u: boolean, v: string): void } })
        .document;
      doc.execCommand('insertText', false, 'await test');
      await new Promise((resolve) => setTimeout(resolve, 0));
      doc.execCommand('insertText', false, '.');
    });
    const hung = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('the page stopped answering after two quick edits')), 15_000).unref(),
    );
    await Promise.race([edited.then(() => page.evaluate(() => 1)), hung]);
    await expect.poll(() => editor().textContent()).toBe('await test.');
    expect(errors).toEqual([]);
  }, 60_000);
});
