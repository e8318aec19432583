import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import { parseCheckResult } from '../check-result.ts';
import { applyCheckDefaults, isManagedCheck, type Check, type CheckInput } from './check-schema.ts';
import { MAX_SCRIPT_BYTES, MAX_SCRIPT_FILES_BYTES } from './script.ts';

const script = "import { test } from '@playwright/test';\ntest('t', async () => {});\n";
const fields = (input: Record<string, unknown>) => applyCheckDefaults({ name: 's', ...input } as CheckInput);
const refused = (input: Record<string, unknown>, pattern: RegExp) =>
  expect(() => fields(input)).toThrow(
    expect.objectContaining({ name: ValidationError.name, message: expect.stringMatching(pattern) }),
  );

describe('script check definitions', () => {
  it('accepts a MULTI_STEP script and makes it a managed check with a 240 s budget', () => {
    const check = fields({ checkType: 'MULTI_STEP', script });
    expect(check).toMatchObject({ script, maxResponseTime: 240_000, degradedResponseTime: 30_000 });
    expect(isManagedCheck({ ...check, id: crypto.randomUUID() } as Check)).toBe(true);
    // Without a script it stays an external check, as before.
    expect(isManagedCheck({ ...fields({ checkType: 'MULTI_STEP' }), id: crypto.randomUUID() } as Check)).toBe(false);
  });

  it('caps a script at 256 KiB, counted in UTF-8 bytes', () => {
    expect(fields({ checkType: 'MULTI_STEP', script: 'a'.repeat(MAX_SCRIPT_BYTES) })).toBeTruthy();
    refused(
      { checkType: 'MULTI_STEP', script: 'a'.repeat(MAX_SCRIPT_BYTES + 1) },
      /^script: must be at most 262144 bytes/,
    );
    refused({ checkType: 'MULTI_STEP', script: 'é'.repeat(MAX_SCRIPT_BYTES / 2 + 1) }, /^script: must be at most/);
    refused({ checkType: 'MULTI_STEP', script: '' }, /^script/);
  });

  it('caps maxResponseTime per type: 240 s for scripts, 45 s otherwise', () => {
    expect(fields({ checkType: 'MULTI_STEP', script, maxResponseTime: 240_000 }).maxResponseTime).toBe(240_000);
    refused({ checkType: 'MULTI_STEP', script, maxResponseTime: 240_001 }, /^maxResponseTime: .*240000/);
    refused({ checkType: 'PLAYWRIGHT', script, maxResponseTime: 250_000 }, /^maxResponseTime/);
    refused({ checkType: 'API', maxResponseTime: 60_000 }, /^maxResponseTime: must be at most 45000 ms for API/);
    refused(
      { checkType: 'BROWSER', browser: { url: 'http://a.test' }, maxResponseTime: 60_000 },
      /^maxResponseTime: must be at most 45000/,
    );
    // A BROWSER check with a script runs like PLAYWRIGHT: the script budget and defaults apply.
    const browserScript = fields({ checkType: 'BROWSER', script });
    expect(browserScript).toMatchObject({ maxResponseTime: 240_000, degradedResponseTime: 30_000 });
    expect(isManagedCheck({ ...browserScript, id: crypto.randomUUID() } as Check)).toBe(true);
    refused(
      { checkType: 'MULTI_STEP', script, degradedResponseTime: 200_000, maxResponseTime: 100_000 },
      /^degradedResponseTime/,
    );
  });

  it('takes exactly one of script and files (BROWSER: script or browser)', () => {
    const files = [{ path: 'tests/a.spec.ts', content: script }];
    expect((fields({ checkType: 'PLAYWRIGHT', files }) as { files?: unknown }).files).toEqual(files);
    refused({ checkType: 'PLAYWRIGHT', script, files }, /^files: give either script or files, not both/);
    refused(
      { checkType: 'BROWSER', script, browser: { url: 'http://a.test' } },
      /^script: give either script or browser/,
    );
  });

  it.each([
    ['/etc/passwd', /^files\[0\]\.path/],
    ['../up.spec.ts', /^files\[0\]\.path/],
    ['a/../../b.spec.ts', /^files\[0\]\.path/],
    ['.hidden/a.spec.ts', /^files\[0\]\.path/],
    ['a//b.spec.ts', /^files\[0\]\.path/],
    ['a\\b.spec.ts', /^files\[0\]\.path/],
    ['a b.spec.ts', /^files\[0\]\.path/],
    ['playwright.config.json', /^files\[0\]\.path: playwright\.config must be/],
  ])('refuses the file path %s', (path, pattern) => {
    refused(
      {
        checkType: 'PLAYWRIGHT',
        files: [
          { path, content: 'x' },
          { path: 'ok.spec.ts', content: 'x' },
        ],
      },
      pattern,
    );
  });

  it('bounds a test project: 1 MiB in all, no duplicate paths, at least one test file', () => {
    const half = 'a'.repeat(MAX_SCRIPT_FILES_BYTES / 2);
    const config = { path: 'playwright.config.ts', content: 'export default {}' };
    expect(
      (
        fields({ checkType: 'PLAYWRIGHT', files: [config, { path: 'a.spec.ts', content: 'x' }] }) as {
          files?: unknown[];
        }
      ).files,
    ).toHaveLength(2);
    refused(
      {
        checkType: 'PLAYWRIGHT',
        files: [
          { path: 'a.spec.ts', content: half },
          { path: 'b.spec.ts', content: `${half}b` },
        ],
      },
      /^files: must be at most 1048576 bytes/,
    );
    refused(
      {
        checkType: 'PLAYWRIGHT',
        files: [
          { path: 'a.spec.ts', content: 'x' },
          { path: 'a.spec.ts', content: 'y' },
        ],
      },
      /duplicate path/,
    );
    refused({ checkType: 'PLAYWRIGHT', files: [config] }, /^files: must hold at least one test file/);
    refused({ checkType: 'PLAYWRIGHT', files: [] }, /^files/);
  });
});

describe('script fields of a v1 result', () => {
  const base = {
    id: crypto.randomUUID(),
    accountId: crypto.randomUUID(),
    checkId: crypto.randomUUID(),
    startedAt: '2026-01-01T00:00:00Z',
    runLocation: 'local',
    hasFailures: true,
    responseTime: 12,
  };
  const scriptFields = {
    steps: [{ name: 'login', status: 'failed', durationMs: 3, error: 'expect failed' }],
    logs: 'hello',
    requests: [{ method: 'GET', url: 'http://a.test/', status: 200, requestHeaders: { a: 'b' }, responseBody: 'ok' }],
    runtimeId: '2025.04',
  };

  it('carries steps, logs, requests and runtimeId on script types only', () => {
    for (const checkType of ['MULTI_STEP', 'PLAYWRIGHT', 'BROWSER'])
      expect(parseCheckResult({ ...base, checkType, ...scriptFields })).toMatchObject({
        ok: true,
        value: scriptFields,
      });
    const api = parseCheckResult({ ...base, checkType: 'API', ...scriptFields });
    expect(api.ok ? '' : api.message).toMatch(
      /^steps: only MULTI_STEP and PLAYWRIGHT and BROWSER results carry steps, not API/,
    );
    // A v1 record from before script checks is still valid.
    expect(parseCheckResult({ ...base, checkType: 'MULTI_STEP' }).ok).toBe(true);
  });

  it('cuts what the script produced instead of refusing the result', () => {
    const parsed = parseCheckResult({
      ...base,
      checkType: 'MULTI_STEP',
      logs: 'x'.repeat(100_000),
      requests: [
        {
          method: 'POST',
          url: 'http://a.test/',
          requestBody: 'b'.repeat(20_000),
          responseHeaders: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`h${i}`, 'v'.repeat(1_000)])),
        },
      ],
    });
    if (!parsed.ok) throw new Error(parsed.message);
    expect(parsed.value.logs).toHaveLength(65_536);
    const request = parsed.value.requests![0]!;
    expect(request.requestBody).toHaveLength(16_384);
    const headerText = Object.entries(request.responseHeaders!).reduce((n, [k, v]) => n + k.length + v.length, 0);
    expect(headerText).toBeLessThanOrEqual(16_384);
    expect(Object.keys(request.responseHeaders!).length).toBeGreaterThan(10);
  });

  it('refuses too many steps or requests', () => {
    const steps = Array.from({ length: 201 }, () => ({ name: 's', status: 'passed', durationMs: 1 }));
    const parsed = parseCheckResult({ ...base, checkType: 'MULTI_STEP', steps });
    expect(parsed.ok ? '' : parsed.message).toMatch(/^steps: Too big/);
    const status = parseCheckResult({
      ...base,
      checkType: 'MULTI_STEP',
      steps: [{ name: 's', status: 'ok', durationMs: 1 }],
    });
    expect(status.ok ? '' : status.message).toMatch(/^steps\[0\]\.status/);
  });
});
