import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isClosedTargetRejection } from './rejections.ts';

const closed = (stackLine: string) => {
  const error = new Error('Target page, context or browser has been closed');
  error.stack = `Error: ${error.message}\n    at DispatcherConnection.dispatch (${stackLine})`;
  return error;
};

/** Runs a process that installs the guard, then leaves one rejection unhandled. */
function exitOf(rejection: string): number | null {
  const script = `
    import { createLogger, tolerateClosedTargetRejections } from '#core';
    tolerateClosedTargetRejections(createLogger({ level: 'silent' }));
    ${rejection}
    setTimeout(() => process.exit(0), 200);`;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: new URL('../..', import.meta.url).pathname,
    encoding: 'utf8',
    timeout: 30_000,
  }).status;
}

describe('unhandled rejections', () => {
  it("recognises only Playwright's closed-target rejection raised inside playwright-core", () => {
    expect(isClosedTargetRejection(closed('/app/node_modules/playwright-core/lib/coreBundle.js:20471:54'))).toBe(true);
    expect(isClosedTargetRejection(closed('/app/libs/probes/browser-probe.ts:40:3'))).toBe(false);
    expect(isClosedTargetRejection(new Error('boom'))).toBe(false);
    expect(isClosedTargetRejection('Target page, context or browser has been closed')).toBe(false);
    expect(isClosedTargetRejection(undefined)).toBe(false);
  });

  it("recognises the rejection of a call pending when Playwright's connection closed, and only that", () => {
    const onClose = (message: string, frame: string) => {
      const error = new Error(message);
      error.stack = `Error: ${message}\n    at ${frame}\n    at onTransportClosed (/app/node_modules/playwright-core/lib/coreBundle.js:64954:16)`;
      return error;
    };
    const bundle = '/app/node_modules/playwright-core/lib/coreBundle.js:66076:29';
    expect(isClosedTargetRejection(onClose('Browser closed', `Connection.close (${bundle})`))).toBe(true);
    expect(isClosedTargetRejection(onClose('socket hang up', `Connection.close (${bundle})`))).toBe(true);
    // Another frame first, or our own code's Connection, is not Playwright's connection closing.
    expect(isClosedTargetRejection(onClose('Browser closed', `Page.goto (${bundle})`))).toBe(false);
    expect(isClosedTargetRejection(onClose('Browser closed', 'Connection.close (/app/libs/db/pool.ts:3:1)'))).toBe(
      false,
    );
  });

  it('a process survives that one, and still ends on any other unhandled rejection', () => {
    const playwright = `const e = new Error('Target page, context or browser has been closed');
      e.stack = 'Error: x\\n    at d (/x/node_modules/playwright-core/lib/coreBundle.js:1:1)'; void Promise.reject(e);`;
    expect(exitOf(playwright)).toBe(0);
    expect(exitOf(`void Promise.reject(new Error('a bug of ours'));`)).not.toBe(0);
  });
});
