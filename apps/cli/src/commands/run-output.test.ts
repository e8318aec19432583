import { afterEach, describe, expect, it, vi } from 'vitest';
import { Context } from '../context.ts';
import { printRun, runSchema } from './run-output.ts';

/** What a script run answers (libs/domain/check-result.ts: steps, logs, requests, runtimeId). */
const run = runSchema.parse({
  result: {
    runLocation: 'local',
    hasFailures: true,
    responseTime: 812.4,
    errorMessage: 'check body: expected "ok", received "degraded"',
    runtimeId: '2025.04',
    steps: [
      { name: 'health', status: 'failed', durationMs: 790 },
      { name: 'GET health', status: 'passed', durationMs: 41.2 },
      { name: 'check body', status: 'failed', durationMs: 12, error: 'Expected: "ok"\nReceived: "degraded"' },
    ],
    requests: [{ method: 'GET', url: 'http://127.0.0.1:8080/health', status: 200, durationMs: 3.7 }],
    logs: 'health answered 200\nsecond line\n',
  },
  assertions: [],
});

describe('printRun for a script run', () => {
  afterEach(() => vi.restoreAllMocks());

  it('prints the outcome, a table of steps, the failing steps with their errors, the requests and the logs', () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    printRun(new Context({}), run);
    const text = written.join('');
    expect(text).toMatch(/^FAILED from local in 812 ms, runtime 2025\.04\n/);
    expect(text).toContain('  check body: expected "ok", received "degraded"\n');
    expect(text).toMatch(/✓\s+GET health\s+passed\s+41 ms/);
    expect(text).toMatch(/✗\s+check body\s+failed\s+12 ms/);
    expect(text).toContain('\n✗ check body:\n  Expected: "ok"\n  Received: "degraded"\n');
    expect(text).toMatch(/GET\s+200\s+4 ms\s+http:\/\/127\.0\.0\.1:8080\/health/);
    expect(text).toMatch(/\nLogs:\n {2}health answered 200\n {2}second line\n$/);
  });

  it('a run of another type prints no script sections', () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    printRun(
      new Context({}),
      runSchema.parse({ result: { runLocation: 'local', hasFailures: false, responseTime: 5 }, assertions: [] }),
    );
    expect(written.join('')).toBe('PASSED from local in 5 ms\n');
  });
});
