import { stripVTControlCharacters } from 'node:util';
import { z } from 'zod';
import type { SandboxOutcome } from '#sandbox';
import type { ScriptPage, ScriptRequest, ScriptRunOutcome, ScriptStep } from './types.ts';

export const LOG_CAP = 64 * 1024;
export const CAP = 16 * 1024;
const MAX_REQUESTS = 1000;
const MAX_PAGES = 100;
const MAX_STEPS = 1000;
/** Lines of the event log read at most: logs and steps are capped long before. */
const MAX_EVENTS = 50_000;
const ERROR_CAP = 4096;

// The event log is written inside the sandbox, so it is as untrusted as the script: every line is
// validated and capped, and a line that does not fit is dropped.
const text = (max: number) => z.string().transform((value) => value.slice(0, max));
const ms = z.number().finite().nonnegative();
const headers = z
  .record(z.string(), z.string())
  .optional()
  .transform((value) => value && capHeaders(value));
const requestSchema = z.object({
  method: text(16),
  url: text(2048),
  status: z.number().int().optional(),
  statusText: text(256).optional(),
  durationMs: ms.optional(),
  timings: z.object({ total: ms.optional() }).optional(),
  requestHeaders: headers,
  requestBody: text(CAP).optional(),
  responseHeaders: headers,
  responseBody: text(CAP).optional(),
});
const metric = ms.optional().catch(undefined);
const count = z.number().int().nonnegative().catch(0);
const pageSchema = z.object({
  url: text(2048),
  TTFB: metric,
  FCP: metric,
  LCP: metric,
  CLS: metric,
  TBT: metric,
  consoleErrors: count,
  networkErrors: count,
  userScriptErrors: count,
  documentErrors: count,
});
const eventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('begin') }),
  z.object({ type: z.literal('testBegin'), test: text(1024) }),
  z.object({ type: z.literal('stepBegin'), test: text(1024), step: text(1024) }),
  z.object({
    type: z.literal('stepEnd'),
    test: text(1024),
    step: text(1024),
    durationMs: ms,
    error: text(ERROR_CAP).optional(),
  }),
  z.object({
    type: z.literal('testEnd'),
    test: text(1024),
    status: z.enum(['passed', 'failed', 'timedOut', 'skipped', 'interrupted']),
    durationMs: ms,
    hadSteps: z.boolean(),
    errors: z.array(text(ERROR_CAP)).max(50),
    requests: z.array(z.unknown()).max(MAX_REQUESTS),
    pages: z.array(z.unknown()).max(MAX_PAGES),
  }),
  z.object({ type: z.literal('log'), text: text(LOG_CAP) }),
  z.object({ type: z.literal('error'), message: text(ERROR_CAP) }),
  z.object({ type: z.literal('end'), status: z.string().max(32) }),
]);
type Event = z.infer<typeof eventSchema>;

function capHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  let size = 0;
  for (const [name, value] of Object.entries(headers)) {
    size += name.length + value.length + 4;
    if (size > CAP) break;
    out[name] = value;
  }
  return out;
}

export function parseEvents(log: string): Event[] {
  const events: Event[] = [];
  for (const line of log.split('\n', MAX_EVENTS)) {
    if (line.trim() === '') continue;
    try {
      const parsed = eventSchema.safeParse(JSON.parse(line));
      if (parsed.success) events.push(parsed.data);
    } catch {
      // A line cut by a kill mid-write.
    }
  }
  return events;
}

/** An error as one readable paragraph: no colours, no stack frames. */
export function clean(message: string): string {
  const lines = stripVTControlCharacters(message)
    .split('\n')
    .filter((line) => !/^\s+at /.test(line));
  return lines.join('\n').trim().slice(0, ERROR_CAP);
}

/** The gist of an error on one line: its first few non-empty lines (message, matcher, expected, received). */
function summary(message: string): string {
  const lines = clean(message)
    .replace(/^Error: /, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^Call log:/.test(line));
  return lines.slice(0, 4).join('; ').slice(0, 1000) || message.slice(0, 1000);
}

export interface OutcomeInput {
  events: Event[];
  sandbox: SandboxOutcome;
  timeoutMs: number;
  durationMs: number;
  runtimeName: string;
}

/** The run's outcome from the reporter's events and how the sandboxed process ended. */
export function buildOutcome({ events, sandbox, timeoutMs, durationMs, runtimeName }: OutcomeInput): ScriptRunOutcome {
  const steps: ScriptStep[] = [];
  const requests: ScriptRequest[] = [];
  const pages: ScriptPage[] = [];
  const failedExpectations: { message: string; step?: string }[] = [];
  // Step name → indexes in steps of those begun and not yet ended (a name can repeat in a loop).
  const openSteps = new Map<string, number[]>();
  let lastOpened: string | undefined;
  const loadErrors: string[] = [];
  let logs = '';
  let running: string | undefined;
  let tests = 0;
  let failedTests = 0;
  let firstFailure: string | undefined;
  let ended: string | undefined;

  for (const event of events) {
    switch (event.type) {
      case 'testBegin':
        running = event.test;
        break;
      case 'stepBegin':
        // Listed in the order they began, so an outer step comes before the steps inside it.
        if (steps.length < MAX_STEPS) {
          const open = openSteps.get(event.step) ?? [];
          open.push(steps.length);
          openSteps.set(event.step, open);
          lastOpened = event.step;
          steps.push({ name: event.step, status: 'passed', durationMs: 0 });
        }
        break;
      case 'stepEnd': {
        const open = openSteps.get(event.step);
        const index = open?.pop();
        if (index === undefined) break;
        if (open!.length === 0) openSteps.delete(event.step);
        const step = steps[index]!;
        step.durationMs = event.durationMs;
        if (event.error) {
          step.status = 'failed';
          step.error = clean(event.error);
        }
        break;
      }
      case 'testEnd': {
        tests += 1;
        running = undefined;
        for (const indexes of openSteps.values()) for (const index of indexes) steps[index]!.status = 'failed';
        openSteps.clear();
        const failed = event.status !== 'passed' && event.status !== 'skipped';
        if (!event.hadSteps && steps.length < MAX_STEPS) {
          const step: ScriptStep = {
            name: event.test,
            status: event.status === 'skipped' ? 'skipped' : failed ? 'failed' : 'passed',
            durationMs: event.durationMs,
          };
          if (failed && event.errors[0]) step.error = clean(event.errors[0]);
          steps.push(step);
        }
        if (failed) {
          failedTests += 1;
          // The innermost failed step of this test is where its expectation failed.
          const failedStep = [...steps].reverse().find((step) => step.status === 'failed' && event.hadSteps);
          for (const error of event.errors) {
            const message = clean(error);
            failedExpectations.push(failedStep ? { message, step: failedStep.name } : { message });
          }
          if (!firstFailure) {
            const why = event.status === 'timedOut' ? `timed out` : summary(event.errors[0] ?? event.status);
            firstFailure = failedStep
              ? `step "${failedStep.name}" failed: ${why}`
              : `test "${event.test}" failed: ${why}`;
          }
        }
        for (const raw of event.requests) {
          const parsed = requestSchema.safeParse(raw);
          if (parsed.success && requests.length < MAX_REQUESTS) requests.push(parsed.data);
        }
        for (const raw of event.pages) {
          const parsed = pageSchema.safeParse(raw);
          if (parsed.success && pages.length < MAX_PAGES) pages.push({ index: pages.length, ...parsed.data });
        }
        break;
      }
      case 'log':
        // Playwright's workers colour what console.log prints; a result is plain text.
        if (logs.length < LOG_CAP) logs += stripVTControlCharacters(event.text).slice(0, LOG_CAP - logs.length);
        break;
      case 'error':
        loadErrors.push(clean(event.message));
        break;
      case 'end':
        ended = event.status;
        break;
      default:
        break;
    }
  }

  let error: string | undefined;
  // Steps still open when the process was stopped: they failed with the run.
  for (const indexes of openSteps.values())
    for (const index of indexes) {
      steps[index]!.status = 'failed';
      if (sandbox.killed) steps[index]!.error = `stopped: ${sandbox.killed}`;
    }
  if (sandbox.killed === 'timeout') {
    // The innermost step still open: the last one begun that has not ended.
    const step = lastOpened !== undefined && openSteps.has(lastOpened) ? lastOpened : [...openSteps.keys()].at(-1);
    error = `timed out after ${timeoutMs} ms${step ? ` in step "${step}"` : running ? ` in test "${running}"` : ''}`;
  } else if (sandbox.killed === 'memory')
    error = `runtime ${runtimeName}: the script went over its memory limit and was stopped`;
  else if (sandbox.killed === 'output') error = 'the script wrote more output than allowed and was stopped';
  else if (sandbox.killed === 'aborted') error = 'the run was cancelled';
  else if (firstFailure) error = firstFailure;
  else if (loadErrors.length > 0) error = `script error: ${summary(loadErrors[0]!)}`;
  else if (ended === undefined)
    error = `the run ended before Playwright Test finished (exit ${sandbox.exitCode ?? sandbox.signal})${tail(sandbox)}`;
  else if (tests === 0) error = 'no tests found: the script must call test()';
  else if (ended !== 'passed') error = ended === 'timedout' ? `timed out after ${timeoutMs} ms` : `run ${ended}`;
  else if (sandbox.exitCode !== 0)
    error = `Playwright Test exited with ${sandbox.exitCode ?? sandbox.signal}${tail(sandbox)}`;

  const outcome: ScriptRunOutcome = {
    passed: error === undefined && failedTests === 0,
    durationMs,
    steps,
    logs,
    requests,
    pages,
  };
  if (error) outcome.error = error;
  if (failedExpectations.length > 0) outcome.failedExpectations = failedExpectations.slice(0, 50);
  return outcome;
}

function tail(sandbox: SandboxOutcome): string {
  const text = clean(`${sandbox.stderr}\n${sandbox.stdout}`)
    .split('\n')
    .filter((line) => line.trim() !== '');
  return text.length > 0 ? `: ${text.slice(-3).join(' | ').slice(0, 1000)}` : '';
}
