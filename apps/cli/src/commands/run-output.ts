import { z } from 'zod';
import type { Context } from '../context.ts';

const stepSchema = z.looseObject({
  name: z.string(),
  status: z.string(),
  durationMs: z.number().optional(),
  error: z.string().optional(),
});
const requestSchema = z.looseObject({
  method: z.string(),
  url: z.string(),
  status: z.number().optional(),
  durationMs: z.number().optional(),
});

/** The answer of POST /v1/checks/test and each of POST /v1/checks/{id}/trigger's results. */
export const runSchema = z.looseObject({
  result: z.looseObject({
    runLocation: z.string(),
    hasFailures: z.boolean(),
    isDegraded: z.boolean().optional(),
    responseTime: z.number(),
    statusCode: z.number().optional(),
    errorMessage: z.string().optional(),
    attempts: z.number().optional(),
    ssl: z.looseObject({ daysRemaining: z.number() }).optional(),
    // Script runs (MULTI_STEP, PLAYWRIGHT, BROWSER with a script).
    steps: z.array(stepSchema).optional(),
    logs: z.string().optional(),
    requests: z.array(requestSchema).optional(),
    runtimeId: z.string().optional(),
  }),
  assertions: z.array(
    z.looseObject({
      assertion: z.looseObject({
        source: z.string(),
        property: z.string(),
        comparison: z.string(),
        target: z.string(),
      }),
      passed: z.boolean(),
      actual: z.string(),
    }),
  ),
});
export type Run = z.infer<typeof runSchema>;

/** A script run may take its whole budget (up to 240 s), plus the queue before it starts. */
export const RUN_TIMEOUT_MS = 300_000;

const ms = (value: number | undefined) => (value === undefined ? null : `${Math.round(value)} ms`);
const MARKS: Record<string, string> = { passed: '✓', failed: '✗', skipped: '-' };

function printScript(ctx: Context, result: Run['result']): void {
  const steps = result.steps ?? [];
  if (steps.length > 0) {
    ctx.out.print('');
    ctx.out.table(steps, [
      { header: '', value: (s) => MARKS[s.status] ?? '?' },
      { header: 'STEP', value: (s) => s.name },
      { header: 'STATUS', value: (s) => s.status },
      { header: 'TIME', value: (s) => ms(s.durationMs) },
    ]);
    for (const step of steps.filter((s) => s.error)) ctx.out.print(`\n✗ ${step.name}:\n${indent(step.error!)}`);
  }
  const requests = result.requests ?? [];
  if (requests.length > 0) {
    ctx.out.print('');
    ctx.out.table(requests, [
      { header: 'METHOD', value: (r) => r.method },
      { header: 'STATUS', value: (r) => r.status },
      { header: 'TIME', value: (r) => ms(r.durationMs) },
      { header: 'URL', value: (r) => r.url },
    ]);
  }
  if (result.logs) ctx.out.print(`\nLogs:\n${indent(result.logs.replace(/\n$/, ''))}`);
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');

export function printRun(ctx: Context, run: Run): void {
  const { result } = run;
  const outcome = result.hasFailures ? 'FAILED' : result.isDegraded ? 'DEGRADED' : 'PASSED';
  const status = result.statusCode === undefined ? '' : `, HTTP ${result.statusCode}`;
  const runtime = result.runtimeId ? `, runtime ${result.runtimeId}` : '';
  ctx.out.print(`${outcome} from ${result.runLocation} in ${Math.round(result.responseTime)} ms${status}${runtime}`);
  if (result.errorMessage) ctx.out.print(indent(result.errorMessage));
  if (result.ssl) ctx.out.print(`  certificate expires in ${result.ssl.daysRemaining} days`);
  if (run.assertions.length > 0) {
    ctx.out.table(run.assertions, [
      { header: 'OK', value: (a) => (a.passed ? 'yes' : 'NO') },
      {
        header: 'ASSERTION',
        value: (a) =>
          `${a.assertion.source} ${a.assertion.property} ${a.assertion.comparison} ${a.assertion.target}`.replace(
            /\s+/g,
            ' ',
          ),
      },
      { header: 'ACTUAL', value: (a) => a.actual },
    ]);
  }
  printScript(ctx, result);
}
