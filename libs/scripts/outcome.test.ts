import { describe, expect, it } from 'vitest';
import { buildOutcome, CAP, LOG_CAP, parseEvents } from './outcome.ts';

// The event log comes from inside the sandbox: these feed it what a hostile or killed script could.
const exited = { exitCode: 0, signal: null, stdout: '', stderr: '', truncated: false, durationMs: 5 };
const line = (event: object) => JSON.stringify(event);
const testEnd = (extra: object = {}) => ({
  type: 'testEnd',
  test: 't',
  status: 'passed',
  durationMs: 3,
  hadSteps: false,
  errors: [],
  requests: [],
  pages: [],
  ...extra,
});
const outcomeOf = (lines: string[], sandbox: object = {}) =>
  buildOutcome({
    events: parseEvents(lines.join('\n')),
    sandbox: { ...exited, ...sandbox },
    timeoutMs: 1000,
    durationMs: 7,
    runtimeName: '2026.04',
  });

describe('script outcome from the reporter events', () => {
  it('caps request headers and bodies at 16 KiB each and drops malformed records and lines', () => {
    const headers = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`h${i}`, 'v'.repeat(1000)]));
    const big = 'b'.repeat(CAP * 2);
    const outcome = outcomeOf([
      '{"type":"begin"}',
      'not json',
      line({ type: 'stepEnd', test: 't', step: 'half a line' }).slice(0, 20),
      line(
        testEnd({
          requests: [
            {
              method: 'GET',
              url: 'http://a/',
              status: 200,
              requestHeaders: headers,
              responseHeaders: headers,
              requestBody: big,
              responseBody: big,
            },
            { method: 42, url: 'http://b/' },
          ],
        }),
      ),
      line({ type: 'end', status: 'passed' }),
    ]);
    expect(outcome.passed).toBe(true);
    expect(outcome.requests).toHaveLength(1);
    const [request] = outcome.requests;
    expect(request!.requestBody).toHaveLength(CAP);
    expect(request!.responseBody).toHaveLength(CAP);
    for (const capped of [request!.requestHeaders!, request!.responseHeaders!]) {
      const size = Object.entries(capped).reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
      expect(size).toBeLessThanOrEqual(CAP);
      expect(Object.keys(capped).length).toBeGreaterThan(10);
    }
    expect(outcome.steps).toEqual([{ name: 't', status: 'passed', durationMs: 3 }]);
  });

  it('caps logs at 64 KiB across chunks and strips colours', () => {
    const chunk = '\u001b[33m' + 'l'.repeat(40 * 1024) + '\u001b[39m';
    const outcome = outcomeOf([
      line({ type: 'log', text: chunk }),
      line({ type: 'log', text: chunk }),
      line(testEnd()),
      line({ type: 'end', status: 'passed' }),
    ]);
    expect(outcome.logs).toHaveLength(LOG_CAP);
    expect(outcome.logs).not.toContain('\u001b');
  });

  it('names the step that was running when the sandbox killed the run for time', () => {
    const outcome = outcomeOf(
      [
        line({ type: 'testBegin', test: 't' }),
        line({ type: 'stepBegin', test: 't', step: 'outer' }),
        line({ type: 'stepBegin', test: 't', step: 'outer › inner' }),
      ],
      { exitCode: null, signal: 'SIGKILL', killed: 'timeout' },
    );
    expect(outcome).toMatchObject({ passed: false, error: 'timed out after 1000 ms in step "outer › inner"' });
  });

  it('lists steps in the order they began, with nested ones after their parent', () => {
    const outcome = outcomeOf([
      line({ type: 'testBegin', test: 't' }),
      line({ type: 'stepBegin', test: 't', step: 'a' }),
      line({ type: 'stepBegin', test: 't', step: 'a › b' }),
      line({ type: 'stepEnd', test: 't', step: 'a › b', durationMs: 2, error: 'Error: boom' }),
      line({ type: 'stepEnd', test: 't', step: 'a', durationMs: 5, error: 'Error: boom' }),
      line(testEnd({ status: 'failed', hadSteps: true, errors: ['Error: boom\n    at x (y.js:1:1)'] })),
      line({ type: 'end', status: 'failed' }),
    ]);
    expect(outcome.steps).toEqual([
      { name: 'a', status: 'failed', durationMs: 5, error: 'Error: boom' },
      { name: 'a › b', status: 'failed', durationMs: 2, error: 'Error: boom' },
    ]);
    expect(outcome.error).toBe('step "a › b" failed: boom');
    expect(outcome.failedExpectations).toEqual([{ message: 'Error: boom', step: 'a › b' }]);
  });

  it('fails a run whose reporter never finished, with the process output', () => {
    const outcome = outcomeOf([], { exitCode: 1, stderr: 'Error: Cannot find module x\n    at foo (bar.js:1:1)\n' });
    expect(outcome.passed).toBe(false);
    expect(outcome.error).toBe('the run ended before Playwright Test finished (exit 1): Error: Cannot find module x');
  });

  it('does not pass a run that claims success but ran no test, or whose process failed', () => {
    expect(outcomeOf([line({ type: 'end', status: 'passed' })]).error).toBe(
      'no tests found: the script must call test()',
    );
    const crashed = outcomeOf([line(testEnd()), line({ type: 'end', status: 'passed' })], { exitCode: 3 });
    expect(crashed.passed).toBe(false);
    expect(crashed.error).toMatch(/^Playwright Test exited with 3/);
  });
});
