import {
  MAX_PAGES_PER_RESULT,
  MAX_REQUESTS_PER_RESULT,
  MAX_STEPS_PER_RESULT,
  type CheckResult,
  type CheckResultInput,
} from '#domain';
import { buildOutcome, errorText, validated, type RawRun } from './result.ts';
import { createScrubber, SCRUBBED } from './secrets.ts';
import type { ProbeContext, ProbeOutcome, ScriptDefinition, ScriptRunOutcome } from './types.ts';

/** What a script run adds to a raw run: carried to buildScriptOutcome, scrubbed there. */
export interface ScriptRawRun extends RawRun {
  script: { outcome: ScriptRunOutcome | null; runtimeId?: string };
}

/**
 * Time left to the sandbox after the script's budget: the runner kills the script at its budget,
 * and still has this long to report before the probe's own hard limit.
 */
const REPORT_MARGIN_MS = 2_000;

export function isScriptDefinition(definition: { checkType: string }): definition is ScriptDefinition {
  return 'runtimeId' in definition && ('script' in definition || 'files' in definition);
}

/**
 * Runs a script check through the injected ScriptRunner (the sandbox). The check's variables are
 * the script's whole environment; the budget is maxResponseTime. Never throws.
 */
export async function runScript(
  definition: ScriptDefinition,
  ctx: ProbeContext,
  signal: AbortSignal,
): Promise<ScriptRawRun> {
  const fail = (error: string, runtimeId?: string): ScriptRawRun => ({
    responseTime: 0,
    error,
    assertions: [],
    script: { outcome: null, ...(runtimeId ? { runtimeId } : {}) },
  });
  if (!ctx.scripts) return fail('script checks cannot run here: this process has no script runner');
  const runtimeId = definition.runtimeId ?? ctx.runtimeId;
  if (!runtimeId) return fail('no runtime to run the script in: set runtimeId on the check, its group or the account');
  const budget = Math.max(1, Math.min(ctx.maxResponseTime, ctx.timeoutMs - REPORT_MARGIN_MS));
  const started = performance.now();
  let outcome: ScriptRunOutcome;
  try {
    outcome = await ctx.scripts.run({
      kind: definition.checkType === 'MULTI_STEP' ? 'MULTI_STEP' : 'PLAYWRIGHT',
      ...(definition.files ? { files: definition.files } : { script: definition.script ?? '' }),
      runtimeName: runtimeId,
      env: { ...ctx.variables },
      timeoutMs: budget,
      allowPrivate: ctx.allowPrivate,
      artifacts: definition.artifacts ?? 'ON_FAILURE',
      degradedMs: ctx.degradedResponseTime,
      signal,
    });
  } catch (error) {
    // The port promises not to throw; if it does, the run fails with the reason instead.
    return { ...fail(`script run failed: ${errorText(error)}`, runtimeId), responseTime: performance.now() - started };
  }
  return {
    responseTime: outcome.durationMs,
    ...(outcome.passed ? {} : { error: failureText(outcome) }),
    assertions: [],
    ...(outcome.artifacts && outcome.artifacts.length > 0 ? { artifacts: outcome.artifacts } : {}),
    script: { outcome, runtimeId },
  };
}

/** Why the run failed, naming the failed step, so the alert says where the script broke. */
export function failureText(outcome: ScriptRunOutcome): string {
  const failed = outcome.steps.filter((step) => step.status === 'failed');
  // The innermost failed step is the last one reported (test.step nests inside its test).
  const step = failed.at(-1);
  const parts: string[] = [];
  const error = outcome.error ?? step?.error ?? outcome.failedExpectations?.[0]?.message ?? 'the script failed';
  if (step && !error.includes(step.name)) parts.push(`step "${step.name}" failed: ${error}`);
  else parts.push(error);
  for (const expectation of outcome.failedExpectations ?? []) {
    if (!parts.some((part) => part.includes(expectation.message)))
      parts.push(expectation.step ? `${expectation.step}: ${expectation.message}` : expectation.message);
  }
  return parts.join('; ');
}

/**
 * The v1 result of a script run: decided like every other run (failed when the script failed or
 * took longer than maxResponseTime, degraded over degradedResponseTime), plus its steps, logs,
 * requests and pages, every string scrubbed of secrets (logs, headers and bodies included).
 */
export function buildScriptOutcome(definition: ScriptDefinition, raw: ScriptRawRun, ctx: ProbeContext): ProbeOutcome {
  const base = buildOutcome(definition.checkType, raw, ctx);
  const whole = createScrubber(ctx.secretValues);
  const scrub = (text: string) => whole(text);
  // Logs and bodies arrive cut at their caps: a secret straddling the cut would leave its start.
  const scrubCut = (text: string) => scrubTail(whole(text), ctx.secretValues);
  const outcome = raw.script.outcome;
  const withPages = definition.checkType !== 'MULTI_STEP';
  const extra: Partial<CheckResultInput> = {
    ...(raw.script.runtimeId && /^\d{4}\.\d{2}$/.test(raw.script.runtimeId) ? { runtimeId: raw.script.runtimeId } : {}),
  };
  if (outcome) {
    extra.steps = outcome.steps.slice(0, MAX_STEPS_PER_RESULT).map((step) => ({
      name: scrub(step.name),
      status: step.status,
      durationMs: finite(step.durationMs),
      ...(step.error === undefined ? {} : { error: scrub(step.error) }),
    }));
    extra.logs = scrubCut(outcome.logs);
    extra.requests = outcome.requests
      .slice(0, MAX_REQUESTS_PER_RESULT)
      .map((request) => scrubRequest(request, scrub, scrubCut));
    if (withPages && outcome.pages.length > 0)
      extra.pages = outcome.pages.slice(0, MAX_PAGES_PER_RESULT).map((page) => ({ ...page, url: scrub(page.url) }));
  }
  const result: CheckResult = validated({ ...base.result, ...extra } as CheckResultInput);
  // buildOutcome kept raw.artifacts, text ones scrubbed; screenshots and traces pass as they are.
  // ON_FAILURE evidence the harness kept for a run it saw slow stays only if the result is degraded.
  const keep =
    (definition.artifacts ?? 'ON_FAILURE') !== 'ON_FAILURE' || result.hasFailures || result.isDegraded === true;
  return {
    result,
    assertions: base.assertions,
    ...(base.artifacts && keep ? { artifacts: base.artifacts } : {}),
  };
}

type RequestRecord = NonNullable<CheckResultInput['requests']>[number];

/** The shortest start of a secret that counts as a leak when a cut text ends with it. */
const MIN_TAIL = 3;

/** Replaces a text's ending that is the start of a secret (cut there by a cap) with the mask. */
export function scrubTail(text: string, secretValues: readonly string[]): string {
  let longest = 0;
  for (const secret of secretValues) {
    for (let n = Math.min(secret.length - 1, text.length); n >= MIN_TAIL && n > longest; n--) {
      if (text.endsWith(secret.slice(0, n))) {
        longest = n;
        break;
      }
    }
  }
  return longest === 0 ? text : `${text.slice(0, text.length - longest)}${SCRUBBED}`;
}

function scrubRequest(
  request: RequestRecord,
  scrub: (text: string) => string,
  scrubCut: (text: string) => string,
): RequestRecord {
  const headers = (values: Record<string, string> | undefined) =>
    values === undefined
      ? undefined
      : Object.fromEntries(Object.entries(values).map(([name, value]) => [scrub(name), scrubCut(value)]));
  const out: RequestRecord = { method: request.method.slice(0, 16) || 'GET', url: scrub(request.url) };
  if (typeof request.status === 'number' && Number.isInteger(request.status) && request.status >= 0)
    out.status = Math.min(request.status, 999);
  if (request.statusText !== undefined) out.statusText = scrub(request.statusText);
  if (request.durationMs !== undefined) out.durationMs = finite(request.durationMs);
  if (request.timings !== undefined)
    out.timings = Object.fromEntries(
      Object.entries(request.timings).filter(
        (entry): entry is [string, number] =>
          typeof entry[1] === 'number' && Number.isFinite(entry[1]) && entry[1] >= 0,
      ),
    );
  const requestHeaders = headers(request.requestHeaders);
  const responseHeaders = headers(request.responseHeaders);
  if (requestHeaders) out.requestHeaders = requestHeaders;
  if (request.requestBody !== undefined) out.requestBody = scrubCut(request.requestBody);
  if (responseHeaders) out.responseHeaders = responseHeaders;
  if (request.responseBody !== undefined) out.responseBody = scrubCut(request.responseBody);
  return out;
}

function finite(ms: number): number {
  return Number.isFinite(ms) && ms > 0 ? Math.min(Math.round(ms * 1000) / 1000, 86_400_000) : 0;
}
