/**
 * JSON over HTTP with the retries a long simulation needs. Every request the simulator repeats
 * is safe to repeat: a batch of results keeps its ids (the ingest de-duplicates them), and a
 * check registration that is retried at worst registers one more demo check.
 */

/** A request that would fail the same way on every retry (bad key, bad body): stop the run. */
export class FatalRequestError extends Error {}

export interface RequestOptions {
  headers?: Record<string, string>;
  body?: unknown;
  /** Tries in all, including the first. */
  attempts?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface JsonResponse<T> {
  status: number;
  body: T;
}

// Waiting out the rate limiter does not use up a try, up to this many times.
const MAX_THROTTLED = 30;
const RETRIED_STATUSES = new Set([429, 500, 502, 503, 504]);

export async function requestJson<T>(
  method: string,
  url: string,
  options: RequestOptions = {},
): Promise<JsonResponse<T>> {
  const attempts = options.attempts ?? 5;
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  let lastError: Error = new Error(`${method} ${url} was not sent`);
  let throttled = 0;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await pause(backoffMs(attempt), options.signal);
    let response: Response;
    try {
      const timeout = AbortSignal.timeout(options.timeoutMs ?? 60_000);
      const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
      response = await fetch(url, { method, headers, body, signal });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      lastError = new Error(`${method} ${pathOf(url)} failed: ${describe(error)}`);
      continue;
    }
    const text = await response.text();
    const parsed = parseBody(text);
    if (response.ok) return { status: response.status, body: parsed as T };
    const message = `${method} ${pathOf(url)} answered ${response.status}: ${messageOf(parsed, text)}`;
    if (!RETRIED_STATUSES.has(response.status)) throw new FatalRequestError(message);
    lastError = new Error(message);
    if (response.status === 429 && throttled++ < MAX_THROTTLED) {
      // The limiter says when its window resets; waiting for it beats guessing with backoff.
      const seconds = Number(response.headers.get('retry-after') ?? response.headers.get('ratelimit-reset') ?? '1');
      await pause(Math.min(60, Number.isFinite(seconds) ? Math.max(seconds, 0.1) : 1) * 1000, options.signal);
      attempt--;
      if (options.signal?.aborted) break;
    }
  }
  throw lastError;
}

function backoffMs(attempt: number): number {
  return Math.min(5_000, 200 * 2 ** (attempt - 2));
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function messageOf(parsed: unknown, text: string): string {
  if (parsed && typeof parsed === 'object' && 'message' in parsed)
    return String((parsed as { message: unknown }).message);
  return text.slice(0, 300) || '(empty body)';
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // fetch reports "fetch failed" and hides the reason (ECONNREFUSED, ...) in its cause.
  const cause = (error as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}
