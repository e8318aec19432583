import { describe, expect, it } from 'vitest';
import { buildScriptOutcome, failureText, scrubTail, type ScriptRawRun } from './script-probe.ts';
import type { ProbeContext } from './types.ts';

const SECRET = 'tok-9a8b7c6d5e';

const ctx: ProbeContext = {
  resultId: crypto.randomUUID(),
  accountId: crypto.randomUUID(),
  checkId: crypto.randomUUID(),
  location: 'local',
  startedAt: new Date('2026-01-01T00:00:00Z'),
  degradedResponseTime: 1_000,
  maxResponseTime: 2_000,
  variables: { API_TOKEN: SECRET },
  secretValues: [SECRET],
  allowPrivate: false,
  timeoutMs: 7_000,
};

const raw = (outcome: Partial<NonNullable<ScriptRawRun['script']['outcome']>>, responseTime = 100): ScriptRawRun => {
  const full = { passed: true, durationMs: responseTime, steps: [], logs: '', requests: [], pages: [], ...outcome };
  return {
    responseTime,
    assertions: [],
    ...(full.passed ? {} : { error: failureText(full) }),
    script: { runtimeId: '2025.04', outcome: full },
  };
};

describe('script results', () => {
  it('masks the start of a secret left at the end of a capped text', () => {
    expect(scrubTail(`log line ${SECRET.slice(0, 6)}`, [SECRET])).toBe('log line ********');
    expect(scrubTail('ends with to', [SECRET])).toBe('ends with to');
    expect(scrubTail('no secret here', [SECRET])).toBe('no secret here');
  });

  it('scrubs logs, step names and errors, request URLs, headers and bodies, also where a cap cut a secret', () => {
    const { result } = buildScriptOutcome(
      { checkType: 'MULTI_STEP', script: 'x', runtimeId: '2025.04' },
      raw({
        passed: false,
        error: `expected ${SECRET}`,
        steps: [{ name: `login as ${SECRET}`, status: 'failed', durationMs: 5, error: `bad ${SECRET}` }],
        logs: `token ${SECRET}\n${'x'.repeat(100)}${SECRET.slice(0, 8)}`,
        requests: [
          {
            method: 'POST',
            url: `http://a.test/?t=${encodeURIComponent(SECRET)}`,
            status: 401,
            requestHeaders: { authorization: `Bearer ${SECRET}` },
            requestBody: `{"t":"${SECRET.slice(0, 5)}`,
            responseBody: JSON.stringify({ echo: SECRET }),
          },
        ],
        pages: [
          {
            index: 0,
            url: 'http://a.test/',
            consoleErrors: 0,
            networkErrors: 0,
            userScriptErrors: 0,
            documentErrors: 0,
          },
        ],
      }),
      ctx,
    );
    const text = JSON.stringify(result);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(SECRET.slice(0, 5));
    expect(result.hasFailures).toBe(true);
    expect(result.errorMessage).toBe('step "login as ********" failed: expected ********');
    expect(result.logs).toMatch(/x{100}\*{8}$/);
    expect(result.requests?.[0]?.requestBody).toBe('{"t":"********');
    // MULTI_STEP results carry no pages (the v1 contract keeps them to browser types).
    expect(result.pages).toBeUndefined();
    expect(result.runtimeId).toBe('2025.04');
  });

  it('decides degraded and failed by the script duration, like every run', () => {
    const definition = { checkType: 'PLAYWRIGHT' as const, script: 'x', runtimeId: null };
    expect(buildScriptOutcome(definition, raw({}, 1_500), ctx).result).toMatchObject({
      hasFailures: false,
      isDegraded: true,
      responseTime: 1_500,
    });
    const slow = buildScriptOutcome(definition, raw({}, 2_500), ctx).result;
    expect(slow).toMatchObject({ hasFailures: true, isDegraded: false });
    expect(slow.errorMessage).toMatch(/over maxResponseTime 2000 ms/);
  });
});
