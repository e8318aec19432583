/**
 * What a script gets for `@playwright/test` (and `playwright/test`): the runtime's own module with
 * `test` extended by two fixture overrides. `request` records every call (method, URL, status,
 * time, headers and bodies capped); `context` watches each page for the BROWSER probe's metrics.
 * Both hand their records to the reporter as test attachments. Everything else is re-exported.
 */
import type { APIRequestContext, APIResponse, BrowserContext, Page, Request } from 'playwright-core';
import { appendFileSync } from 'node:fs';
import { PAGE_METRICS_SCRIPT } from './page-metrics.ts';

declare const require: (id: string) => Record<string, unknown>;
declare const module: { exports: unknown };

const CAP = 16 * 1024;
const METRICS_TIMEOUT_MS = 3000;
/** Each evidence call's own limit, so a hung page cannot eat the run's report time. */
const CAPTURE_TIMEOUT_MS = 10_000;
/**
 * Where the evidence goes (the runner reads these two names out of /work, size-capped, regular
 * files only, magic checked): ALWAYS or ON_FAILURE from the runner, anything else keeps nothing.
 */
// eslint-disable-next-line no-restricted-properties -- the sandboxed run's own environment, set by the runner
const ARTIFACTS = process.env.VIGIL_ARTIFACTS;
// eslint-disable-next-line no-restricted-properties -- the sandboxed run's own environment, set by the runner
const DEGRADED_AT = Number(process.env.VIGIL_DEGRADED_AT ?? Infinity);
const SCREENSHOT_FILE = '/work/.vigil-screenshot.png';
/** MULTI_STEP: the body of each response that was not 2xx, one JSON line each, at most 1 MiB a body. */
// eslint-disable-next-line no-restricted-properties -- the sandboxed run's own environment, set by the runner
const KEEP_BODIES = process.env.VIGIL_FAILED_BODIES === '1';
const BODIES_FILE = '/work/.vigil-bodies.jsonl';
const BODY_CAP = 1024 * 1024;
const MAX_BODIES = 10;
/** The runner refuses a bodies file over this (JSON escapes can make a line several times its body). */
const BODIES_FILE_CAP = 16 * 1024 * 1024;
let bodiesKept = 0;
let bodiesBytes = 0;
const TRACE_FILE = '/work/.vigil-trace.zip';

interface TestInfo {
  attach(name: string, options: { body: string; contentType: string }): Promise<void>;
  status?: string;
  expectedStatus: string;
}
type Use<T> = (value: T) => Promise<void>;
interface TestType {
  extend(fixtures: Record<string, unknown>): TestType;
}

const base = require('/node_modules/@playwright/test');
const baseTest = base.test as TestType;

const capped = (text: string) => (text.length > CAP ? text.slice(0, CAP) : text);

function cappedHeaders(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  const out: Record<string, string> = {};
  let size = 0;
  for (const [name, value] of Object.entries(headers)) {
    size += name.length + String(value).length + 4;
    if (size > CAP) break;
    out[name] = String(value);
  }
  return out;
}

function bodyText(options: Record<string, unknown> | undefined): string | undefined {
  if (!options) return undefined;
  const body = options.data ?? options.form ?? options.multipart;
  if (body === undefined) return undefined;
  if (typeof body === 'string') return capped(body);
  if (Buffer.isBuffer(body)) return capped(body.toString('utf8'));
  try {
    return capped(JSON.stringify(body) ?? '');
  } catch {
    return '[unserialisable body]';
  }
}

const METHODS = new Set(['fetch', 'get', 'post', 'put', 'patch', 'delete', 'head']);

function recording(context: APIRequestContext, records: object[]): APIRequestContext {
  return new Proxy(context, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      if (typeof property !== 'string' || !METHODS.has(property)) return value.bind(target);
      return async (urlOrRequest: string | { url(): string; method(): string }, options?: Record<string, unknown>) => {
        const given = typeof urlOrRequest === 'string' ? urlOrRequest : urlOrRequest.url();
        const method =
          property === 'fetch'
            ? String(options?.method ?? (typeof urlOrRequest === 'string' ? 'GET' : urlOrRequest.method()))
            : property.toUpperCase();
        const record: Record<string, unknown> = {
          method: method.toUpperCase(),
          url: given,
          requestHeaders: cappedHeaders(options?.headers as Record<string, string> | undefined),
          requestBody: bodyText(options),
        };
        records.push(record);
        const started = performance.now();
        try {
          const response = (await value.call(target, urlOrRequest, options)) as APIResponse;
          const total = performance.now() - started;
          record.url = response.url();
          record.status = response.status();
          record.statusText = response.statusText();
          record.durationMs = total;
          record.timings = { total };
          record.responseHeaders = cappedHeaders(response.headers());
          try {
            const body = await response.body();
            record.responseBody = body.subarray(0, CAP).toString('utf8');
            if (KEEP_BODIES && !response.ok() && bodiesKept < MAX_BODIES) {
              bodiesKept += 1;
              const line = {
                method: record.method,
                url: record.url,
                body: body.subarray(0, BODY_CAP).toString('utf8'),
              };
              const text = `${JSON.stringify(line)}\n`;
              bodiesBytes += Buffer.byteLength(text);
              if (bodiesBytes <= BODIES_FILE_CAP) appendFileSync(BODIES_FILE, text);
            }
          } catch {
            // A disposed or bodiless response: the status is the record.
          }
          return response;
        } catch (error) {
          record.durationMs = performance.now() - started;
          record.error = String((error as Error)?.message ?? error).split('\n')[0];
          throw error;
        }
      };
    },
  });
}

interface PageWatch {
  page: Page;
  url: string;
  consoleErrors: number;
  networkErrors: number;
  userScriptErrors: number;
  documentErrors: number;
  metrics?: Record<string, number | undefined>;
}

async function readMetrics(page: Page): Promise<Record<string, number | undefined> | undefined> {
  const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), METRICS_TIMEOUT_MS).unref());
  const read = page
    .evaluate(
      'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))).then(() => window.__vigilPageMetrics && window.__vigilPageMetrics())',
    )
    .catch(() => undefined) as Promise<Record<string, number | undefined> | undefined>;
  return Promise.race([read, timeout]);
}

function watchPage(page: Page, watches: PageWatch[]): void {
  const watch: PageWatch = {
    page,
    url: page.url(),
    consoleErrors: 0,
    networkErrors: 0,
    userScriptErrors: 0,
    documentErrors: 0,
  };
  watches.push(watch);
  const isDocument = (request: Request) => request.isNavigationRequest() && request.frame() === page.mainFrame();
  page.on('console', (message) => {
    if (message.type() === 'error') watch.consoleErrors += 1;
  });
  page.on('pageerror', () => (watch.userScriptErrors += 1));
  page.on('requestfailed', (request) => {
    if (isDocument(request)) watch.documentErrors += 1;
    else watch.networkErrors += 1;
  });
  page.on('response', (response) => {
    if (response.status() < 400) return;
    if (isDocument(response.request())) watch.documentErrors += 1;
    else watch.networkErrors += 1;
  });
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) watch.url = frame.url();
  });
  // Metrics of a page the script closes itself are read just before it goes.
  const close = page.close.bind(page);
  page.close = async (options?: Parameters<Page['close']>[0]) => {
    if (!watch.metrics && !page.isClosed()) watch.metrics = await readMetrics(page);
    return close(options);
  };
}

async function startTracing(context: BrowserContext): Promise<boolean> {
  if (ARTIFACTS !== 'ALWAYS' && ARTIFACTS !== 'ON_FAILURE') return false;
  // A config that traces by itself already started it: then the script's own trace is not ours.
  return context.tracing
    .start({ snapshots: true, screenshots: false, sources: false })
    .then(() => true)
    .catch(() => false);
}

const within = <T>(work: Promise<T>) =>
  Promise.race([
    work,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timed out')), CAPTURE_TIMEOUT_MS).unref()),
  ]);

/** On a failed test (or ALWAYS): a full-page PNG of the last open page, then the trace into its file. */
async function finishEvidence(
  context: BrowserContext,
  watches: PageWatch[],
  tracing: boolean,
  testInfo: TestInfo,
): Promise<void> {
  // A trace that did not start (the config traces by itself) still leaves the screenshot to take.
  // ON_FAILURE also keeps a passing test that ran past the degraded threshold (the runner was told when).
  const keep =
    ARTIFACTS === 'ALWAYS' ||
    (ARTIFACTS === 'ON_FAILURE' && (testInfo.status !== testInfo.expectedStatus || Date.now() >= DEGRADED_AT));
  if (!keep) {
    if (tracing) await within(context.tracing.stop()).catch(() => {});
    return;
  }
  const page = [...watches].reverse().find((watch) => !watch.page.isClosed())?.page;
  if (page)
    await page
      .screenshot({ path: SCREENSHOT_FILE, fullPage: true, type: 'png', timeout: CAPTURE_TIMEOUT_MS })
      .catch(() => {});
  if (tracing) await within(context.tracing.stop({ path: TRACE_FILE })).catch(() => {});
}

const test = baseTest.extend({
  request: async ({ request }: { request: APIRequestContext }, use: Use<APIRequestContext>, testInfo: TestInfo) => {
    const records: object[] = [];
    try {
      await use(recording(request, records));
    } finally {
      if (records.length > 0)
        await testInfo.attach('vigil-requests', { body: JSON.stringify(records), contentType: 'application/json' });
    }
  },
  context: async ({ context }: { context: BrowserContext }, use: Use<BrowserContext>, testInfo: TestInfo) => {
    const watches: PageWatch[] = [];
    await context.addInitScript(PAGE_METRICS_SCRIPT);
    for (const page of context.pages()) watchPage(page, watches);
    context.on('page', (page) => watchPage(page, watches));
    const tracing = await startTracing(context);
    try {
      await use(context);
    } finally {
      await finishEvidence(context, watches, tracing, testInfo);
      const pages = [];
      for (const watch of watches) {
        if (!watch.metrics && !watch.page.isClosed()) watch.metrics = await readMetrics(watch.page);
        const { page: _page, metrics, ...counters } = watch;
        if (counters.url === 'about:blank' && !metrics) continue;
        pages.push({ ...counters, ...(metrics ?? {}) });
      }
      if (pages.length > 0)
        await testInfo.attach('vigil-pages', { body: JSON.stringify(pages), contentType: 'application/json' });
    }
  },
});

// Shaped like the runtime's own module: the test function itself, carrying every other export
// (expect, request, devices, defineConfig, …), so default and named imports and require all work.
const shim = test as unknown as Record<string, unknown>;
for (const [name, value] of Object.entries(base)) if (!(name in shim)) shim[name] = value;
shim.test = test;
shim.default = test;
module.exports = shim;
