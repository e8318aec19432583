import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { services } from '#test-support';
import { guardPlaywrightConnection } from './playwright-guard.ts';

// The real race (an event for a response whose context has just closed) does not come on
// demand, so each test hands the real in-process connection the message that race produces.
let browser: Browser;
const lateEvent = () => ({
  guid: (browser as unknown as { _guid: string })._guid,
  method: 'context',
  params: { context: { guid: 'browser-context@0123456789abcdef0123456789abcdef' } },
});
const dispatch = (message: unknown) =>
  (browser as unknown as { _connection: { dispatch(m: unknown): void } })._connection.dispatch(message);

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: services().CHROMIUM_HEADLESS_SHELL_PATH, headless: true });
});
afterAll(async () => {
  await browser?.close();
});

describe('guardPlaywrightConnection', () => {
  it('without it, a message for an object already gone throws out of the dispatch', () => {
    expect(() => dispatch(lateEvent())).toThrow(/was not bound in the connection/);
  });

  it('with it, such a message is logged and dropped, and the browser keeps working', async () => {
    const warnings: string[] = [];
    const log = createLogger({ level: 'silent' });
    log.warn = ((...args: unknown[]) => void warnings.push(String(args.at(-1)))) as typeof log.warn;
    expect(guardPlaywrightConnection(browser, log)).toBe(true);
    expect(() => dispatch(lateEvent())).not.toThrow();
    expect(warnings).toEqual(['playwright: dropped a message for an object already closed']);
    // Other errors still surface.
    expect(() => dispatch({ id: 987654321, result: {} })).toThrow(/Cannot find command to respond/);
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setContent('<p>still here</p>');
    expect(await page.textContent('p')).toBe('still here');
    await context.close();
  });
});
