import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiRequestSchema, retryStrategySchema } from '#domain';
import { backoffSeconds, browserPath, runProbe, runWithRetries } from './run.ts';
import { httpServer, probeContext, type TestServer } from './test-helpers.ts';

let server: TestServer;
let failuresLeft = 0;
beforeAll(async () => {
  server = await httpServer((_req, res) => {
    if (failuresLeft > 0) {
      failuresLeft -= 1;
      res.statusCode = 503;
    }
    res.end();
  });
});
afterAll(() => server.close());

const definition = () => ({
  checkType: 'API' as const,
  request: apiRequestSchema.parse({
    url: server.url,
    assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
  }),
});

describe('retries', () => {
  it('spaces retries as Checkly does: fixed, linear, exponential', () => {
    const strategy = (type: 'FIXED' | 'LINEAR' | 'EXPONENTIAL') =>
      retryStrategySchema.parse({ type, maxRetries: 3, baseBackoffSeconds: 5 });
    expect([1, 2, 3].map((n) => backoffSeconds(strategy('FIXED'), n))).toEqual([5, 5, 5]);
    expect([1, 2, 3].map((n) => backoffSeconds(strategy('LINEAR'), n))).toEqual([5, 10, 15]);
    expect([1, 2, 3].map((n) => backoffSeconds(strategy('EXPONENTIAL'), n))).toEqual([5, 25, 125]);
  });

  it('retries a failed run until it passes and counts the attempts', async () => {
    failuresLeft = 2;
    const waits: number[] = [];
    const outcome = await runWithRetries(
      definition(),
      probeContext(),
      retryStrategySchema.parse({ type: 'LINEAR', maxRetries: 5, baseBackoffSeconds: 2 }),
      async (ms) => void waits.push(ms),
    );
    expect(outcome.result).toMatchObject({ hasFailures: false, attempts: 3 });
    expect(waits).toEqual([2000, 4000]);
  });

  it('stops at maxRetries and returns the last failure', async () => {
    failuresLeft = 10;
    const outcome = await runWithRetries(
      definition(),
      probeContext(),
      retryStrategySchema.parse({ type: 'FIXED', maxRetries: 2, baseBackoffSeconds: 0 }),
      async () => {},
    );
    expect(outcome.result).toMatchObject({ hasFailures: true, attempts: 3 });
    expect(outcome.result.errorMessage).toContain('actual 503');
  });

  it('does not start a retry past maxDurationSeconds', async () => {
    failuresLeft = 10;
    const outcome = await runWithRetries(
      definition(),
      probeContext(),
      retryStrategySchema.parse({ type: 'FIXED', maxRetries: 5, baseBackoffSeconds: 30, maxDurationSeconds: 70 }),
      async () => {},
    );
    // Two waits of 30 s fit in 70 s (runs and waits counted); a third would not.
    expect(outcome.result.attempts).toBe(3);
  });

  it('is a failed run, not a throw, when the caller aborts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    const { result } = await runProbe(definition(), probeContext({ signal: controller.signal }));
    expect(result.hasFailures).toBe(true);
    expect(result.errorMessage).toContain('shutting down');
  });
});

describe('the browser BROWSER runs drive', () => {
  // Real files: an executable one stands in for the installed shell, a plain file for a broken one.
  const dir = mkdtempSync(join(tmpdir(), 'vigil-browser-path-'));
  const shell = join(dir, 'chromium-headless-shell');
  const notExecutable = join(dir, 'not-executable');
  writeFileSync(shell, '#!/bin/sh\n', { mode: 0o755 });
  writeFileSync(notExecutable, '', { mode: 0o644 });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is the headless shell when it is installed', () => {
    expect(browserPath({ chromiumPath: '/usr/bin/chromium', headlessShellPath: shell })).toBe(shell);
  });

  it('is Chromium when the shell is missing, not executable or not configured', () => {
    for (const headlessShellPath of [join(dir, 'missing'), notExecutable, '', undefined])
      expect(browserPath({ chromiumPath: '/usr/bin/chromium', headlessShellPath })).toBe('/usr/bin/chromium');
  });

  it('is none without Chromium or a shell', () => {
    expect(browserPath({ headlessShellPath: join(dir, 'missing') })).toBeUndefined();
  });
});
