import { accessSync, constants } from 'node:fs';
import { SCRIPT_RESPONSE_TIME_CAP_MS, type RetryStrategy } from '#domain';
import { sleep as abortableSleep, type Logger } from '#core';
import { createBrowserPool } from './browser-pool.ts';
import { runBrowser } from './browser-probe.ts';
import { runDns } from './dns-probe.ts';
import { runHttp } from './http-probe.ts';
import { buildOutcome, errorText, type RawRun } from './result.ts';
import { buildScriptOutcome, isScriptDefinition, runScript, type ScriptRawRun } from './script-probe.ts';
import { createScrubber } from './secrets.ts';
import { runTcp } from './tcp-probe.ts';
import type {
  BrowserPool,
  ProbeContext,
  ProbeOutcome,
  Prober,
  RunnableDefinition,
  ScriptRunner,
  Sleep,
} from './types.ts';

class RunTimedOut extends Error {}

function execute(definition: RunnableDefinition, ctx: ProbeContext, signal: AbortSignal): Promise<RawRun> {
  const { variables, allowPrivate } = ctx;
  if (isScriptDefinition(definition)) return runScript(definition, ctx, signal);
  switch (definition.checkType) {
    case 'API':
    case 'URL':
      return runHttp(definition.checkType, definition.request, variables, allowPrivate, signal);
    case 'TCP':
      return runTcp(definition.request, variables, allowPrivate, signal);
    case 'DNS':
      return runDns(definition.request, variables, allowPrivate, signal);
    case 'BROWSER':
      return runBrowser(
        definition.browser,
        variables,
        allowPrivate,
        ctx.browser,
        ctx.timeoutMs,
        signal,
        ctx.degradedResponseTime,
      );
  }
  // A script definition missing both script and files: refused by the schema, so only a bug gets here.
  return Promise.resolve({
    responseTime: 0,
    error: `nothing to run for this ${(definition as { checkType: string }).checkType} check`,
    assertions: [],
  });
}

/**
 * Performs one run and returns its v1 result and assertion outcomes. Never throws for anything the
 * target does; ends by ctx.timeoutMs at the latest, and early when ctx.signal aborts.
 */
export async function runProbe(definition: RunnableDefinition, ctx: ProbeContext): Promise<ProbeOutcome> {
  // One controller per run, linked to the caller's signal by a listener removed at the end: a
  // long-lived runner signal must not collect a listener (or AbortSignal.any link) per run.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new RunTimedOut(`timed out after ${ctx.timeoutMs} ms`));
  }, ctx.timeoutMs);
  const onCallerAbort = () => controller.abort(ctx.signal?.reason ?? new Error('aborted'));
  if (ctx.signal?.aborted) onCallerAbort();
  else ctx.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const signal = controller.signal;
  const started = performance.now();
  let raw: RawRun;
  try {
    // The race makes the limit hard even if a probe ignored its signal.
    raw = await Promise.race([
      execute(definition, ctx, signal),
      new Promise<never>((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      }),
    ]);
  } catch (error) {
    const reason = error instanceof RunTimedOut ? error.message : `run aborted: ${errorText(error ?? 'aborted')}`;
    raw = { responseTime: performance.now() - started, error: reason, assertions: [] };
  } finally {
    clearTimeout(timer);
    ctx.signal?.removeEventListener('abort', onCallerAbort);
  }
  // A probe that reports a timeout in its own words still names the limit.
  if (timedOut && raw.error && !raw.error.includes('timed out'))
    raw = { ...raw, error: `timed out after ${ctx.timeoutMs} ms (${raw.error})` };
  try {
    if (isScriptDefinition(definition))
      return buildScriptOutcome(
        definition,
        'script' in raw ? (raw as ScriptRawRun) : { ...raw, script: { outcome: null } },
        ctx,
      );
    return buildOutcome(definition.checkType, raw, ctx);
  } catch (error) {
    // Only a bug gets here; its message may quote the run, so it is scrubbed too.
    // eslint-disable-next-line preserve-caught-error -- the cause would carry the unscrubbed text
    throw new Error(createScrubber(ctx.secretValues)(errorText(error)));
  }
}

/** The longest one attempt may take: a script's budget is up to 240 s (plus time to report), other runs' 60 s. */
export function attemptTimeoutCap(definition: RunnableDefinition): number {
  return isScriptDefinition(definition) ? SCRIPT_RESPONSE_TIME_CAP_MS + 5_000 : 60_000;
}

/** Seconds to wait before retry number `retry` (1-based), as Checkly spaces them. */
export function backoffSeconds(strategy: RetryStrategy, retry: number): number {
  const base = strategy.baseBackoffSeconds;
  switch (strategy.type) {
    case 'NONE':
      return 0;
    case 'FIXED':
      return base;
    case 'LINEAR':
      return base * retry;
    case 'EXPONENTIAL':
      return base ** retry;
  }
}

/**
 * Runs, and runs again while the run fails, up to maxRetries times with the strategy's backoff,
 * never starting a retry after maxDurationSeconds from the first start. A degraded run is not
 * retried. The last run is the result; `attempts` counts them all.
 */
export async function runWithRetries(
  definition: RunnableDefinition,
  ctx: ProbeContext,
  retry: RetryStrategy,
  sleep: Sleep = abortableSleep,
): Promise<ProbeOutcome> {
  // Time spent so far: runs as measured plus the backoff asked for (so an injected sleep counts too).
  let spentMs = 0;
  const attempt = async () => {
    const before = performance.now();
    const outcome = await runProbe(definition, ctx);
    spentMs += performance.now() - before;
    return outcome;
  };
  let outcome = await attempt();
  let attempts = 1;
  const maxRetries = retry.type === 'NONE' ? 0 : retry.maxRetries;
  while (outcome.result.hasFailures && attempts <= maxRetries && !ctx.signal?.aborted) {
    const waitMs = backoffSeconds(retry, attempts) * 1000;
    if (spentMs + waitMs > retry.maxDurationSeconds * 1000) break;
    await sleep(waitMs, ctx.signal);
    spentMs += waitMs;
    if (ctx.signal?.aborted) break;
    outcome = await attempt();
    attempts += 1;
  }
  return { ...outcome, result: { ...outcome.result, attempts } };
}

export interface ProberOptions {
  /** Debian's chromium; without it BROWSER runs fail with a clear message. */
  chromiumPath?: string;
  /**
   * Debian's chromium-headless-shell (old headless, Playwright's own choice for headless runs): the
   * browser BROWSER runs drive when it is installed. It lays out and rasters at about a quarter of
   * Chromium's --headless CPU (a failing run with a full-page screenshot and a trace 286 ms against
   * 1,040, bench/artifacts.ts), the same engine version from the same source package.
   */
  headlessShellPath?: string;
  maxPages?: number;
  /** Runs script checks (MULTI_STEP, PLAYWRIGHT, BROWSER with a script); its owner closes it. */
  scripts?: ScriptRunner;
  logger: Logger;
}

/** The headless shell when it is installed, else Chromium (a missing shell is no error: it is optional). */
export function browserPath(options: Pick<ProberOptions, 'chromiumPath' | 'headlessShellPath'>): string | undefined {
  const shell = options.headlessShellPath;
  if (shell) {
    try {
      accessSync(shell, constants.X_OK);
      return shell;
    } catch {
      // Not installed here: Chromium does the same work at a higher cost.
    }
  }
  return options.chromiumPath;
}

/** runProbe and runWithRetries with a lazily launched browser pool, closed by close(). */
export function createProber(options: ProberOptions): Prober {
  const executablePath = browserPath(options);
  if (executablePath) options.logger.info({ executablePath }, 'BROWSER checks drive this browser');
  const pool: BrowserPool | undefined = executablePath
    ? createBrowserPool({
        executablePath,
        maxPages: options.maxPages ?? 4,
        logger: options.logger,
      })
    : undefined;
  const withPool = (ctx: ProbeContext): ProbeContext => {
    let out = ctx.browser || !pool ? ctx : { ...ctx, browser: pool };
    if (!out.scripts && options.scripts) out = { ...out, scripts: options.scripts };
    return out;
  };
  return {
    runProbe: (definition, ctx) => runProbe(definition, withPool(ctx)),
    runWithRetries: (definition, ctx, retry) => runWithRetries(definition, withPool(ctx), retry),
    close: async () => pool?.close(),
  };
}
