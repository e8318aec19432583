import { performance } from 'node:perf_hooks';
import type { BrowserContext, Request } from 'playwright-core';
import type { BrowserDefinition, CheckResultPage } from '#domain';
import { checkLiteral } from './address.ts';
import { finishCapture, startCapture } from './browser-artifacts.ts';
import { bounded } from './browser-bound.ts';
import { METRICS_SCRIPT, type PageMetrics } from './browser-metrics.ts';
import { errorText, type RawRun } from './result.ts';
import { substitute } from './secrets.ts';
import { startPolicyProxy, type PolicyProxy } from './socks-proxy.ts';
import type { BrowserPool } from './types.ts';

/** After the page reached waitUntil, metrics are read within this long. */
const METRICS_TIMEOUT_MS = 5000;

interface Counters {
  consoleErrors: number;
  networkErrors: number;
  userScriptErrors: number;
  documentErrors: number;
}

const nonNegative = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '') ?? text;
}

async function visit(
  context: BrowserContext,
  definition: BrowserDefinition,
  url: string,
  timeoutMs: number,
  proxy: PolicyProxy | undefined,
  degradedMs: number,
  signal: AbortSignal,
): Promise<RawRun> {
  // Each call is bounded by the run: a call on a context closed meanwhile may never settle.
  await bounded(context.addInitScript(METRICS_SCRIPT), 'browser addInitScript', signal);
  const tracing = await startCapture(context, definition, signal);
  const page = await bounded(context.newPage(), 'browser newPage', signal);
  const counters: Counters = { consoleErrors: 0, networkErrors: 0, userScriptErrors: 0, documentErrors: 0 };
  const isDocument = (request: Request) => request.isNavigationRequest() && request.frame() === page.mainFrame();
  page.on('console', (message) => {
    if (message.type() === 'error') counters.consoleErrors += 1;
  });
  page.on('pageerror', () => (counters.userScriptErrors += 1));
  page.on('requestfailed', (request) => {
    if (isDocument(request)) counters.documentErrors += 1;
    else counters.networkErrors += 1;
  });
  page.on('response', (response) => {
    if (response.status() < 400) return;
    if (isDocument(response.request())) counters.documentErrors += 1;
    else counters.networkErrors += 1;
  });

  const start = performance.now();
  let error: string | undefined;
  let implicitFailure: string | undefined;
  try {
    const response = await bounded(
      page.goto(url, { waitUntil: definition.waitUntil, timeout: Math.max(1, timeoutMs) }),
      'browser goto',
      signal,
    );
    const status = response?.status();
    if (status !== undefined && status >= 400) implicitFailure = `document status ${status}`;
  } catch (failure) {
    const host = new URL(url).hostname;
    const bare = host.replace(/^\[|\]$/g, '');
    const refused = proxy?.refusals.get(bare);
    const text = firstLine(errorText(failure));
    const failed = text.includes('ERR_SOCKS_CONNECTION_FAILED') ? proxy?.failures.get(bare) : undefined;
    error =
      refused ??
      `navigation to ${url} failed: ${failed ? text.replace(/net::ERR_SOCKS_CONNECTION_FAILED/, failed) : text}`;
  }
  const responseTime = performance.now() - start;
  let metrics: PageMetrics = {};
  if (!error) {
    try {
      metrics = await bounded(
        // Two frames first, so shifts and paints of the last task are reported.
        page.evaluate(
          'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))).then(() => window.__vigilMetrics())',
        ) as Promise<PageMetrics>,
        'browser metrics',
        signal,
        METRICS_TIMEOUT_MS,
      );
    } catch {
      metrics = {};
    }
  }
  const pageResult: CheckResultPage = {
    index: 0,
    url: (page.url() || url).slice(0, 2048),
    ...counters,
  };
  for (const key of ['TTFB', 'FCP', 'LCP', 'CLS', 'TBT'] as const) {
    const value = nonNegative(metrics[key]);
    if (value !== undefined) pageResult[key] = key === 'CLS' ? Math.min(value, 1000) : value;
  }
  // Failed or degraded as buildOutcome will judge it (degraded ≤ max, so a slow failure counts too).
  const troubled = Boolean(error || implicitFailure) || responseTime > degradedMs;
  const keep = definition.artifacts === 'ALWAYS' || (definition.artifacts === 'ON_FAILURE' && troubled);
  const artifacts = await finishCapture(context, page, keep, tracing, signal);
  return {
    responseTime,
    assertions: [],
    ...(error ? { error } : {}),
    ...(implicitFailure ? { implicitFailure } : {}),
    pages: [pageResult],
    ...(artifacts.length > 0 ? { artifacts } : {}),
  };
}

export async function runBrowser(
  definition: BrowserDefinition,
  vars: Record<string, string>,
  allowPrivate: boolean,
  pool: BrowserPool | undefined,
  timeoutMs: number,
  signal: AbortSignal,
  degradedMs = Number.POSITIVE_INFINITY,
): Promise<RawRun> {
  const url = substitute(definition.url, vars);
  const fail = (error: string): RawRun => ({ responseTime: 0, error, assertions: [] });
  if (!pool) return fail('browser checks need a browser pool (CHROMIUM_PATH), and this process has none');
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return fail(`url: ${JSON.stringify(url)} is not a valid URL`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    return fail(`url: only http and https are supported, not ${target.protocol}`);
  const literal = checkLiteral(target.hostname, allowPrivate);
  if (literal) return fail(literal.message);

  // Always through the policy proxy: with private targets allowed it still refuses cloud metadata,
  // which a page could otherwise reach by a redirect or a sub-resource.
  const proxy = await startPolicyProxy(allowPrivate);
  const started = performance.now();
  try {
    return await pool.withContext(
      { viewport: definition.viewport, signal, proxy: { server: proxy.server } },
      (context) =>
        visit(context, definition, url, timeoutMs - (performance.now() - started), proxy, degradedMs, signal),
    );
  } catch (error) {
    return {
      responseTime: performance.now() - started,
      error: `browser: ${firstLine(errorText(error))}`,
      assertions: [],
    };
  } finally {
    await proxy?.close();
  }
}
