import http, { validateHeaderName, validateHeaderValue } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { urlToHttpOptions } from 'node:url';
import { checkAddress } from './address-policy.ts';
import {
  AddressRefused,
  AttemptAborted,
  AttemptTimedOut,
  attemptResult,
  connectLookup,
  defaultLookups,
  describe,
  PRIVATE_HINT,
  RESPONSE_BODY_LIMIT,
  type Resolver,
} from './deliver-connect.ts';
import { sendUndici } from './deliver-undici.ts';
import { metadataRange } from './metadata.ts';
import { SERVICE_HEADER_NAMES } from './headers.ts';
import { isJsonBody } from './render.ts';
import { signatureHeaders } from './signing.ts';

export { RESPONSE_BODY_LIMIT, type Resolver };

export interface WebhookRequest {
  url: string;
  method: string;
  headers: Readonly<Record<string, string>>;
  body: string;
}

export interface DeliveryOptions {
  timeoutMs: number;
  /** Lifts the address policy (VIGIL_ALLOW_PRIVATE_TARGETS, or its alias VIGIL_WEBHOOK_ALLOW_PRIVATE): for tests and self-hosting. */
  allowPrivate: boolean;
  userAgent: string;
  /** Sent as `webhook-id`; the same on every retry so receivers can de-duplicate. */
  deliveryId: string;
  secret?: string | null;
  /** The time of this attempt; `x-service-timestamp` and the signatures use it. */
  now?: Date;
  signal?: AbortSignal;
  /** Name resolution; dns.lookup by default. The address policy applies to whatever it returns. */
  resolve?: Resolver;
}

export type DeliveryOutcome = 'delivered' | 'failed' | 'refused';

export interface DeliveryResult {
  outcome: DeliveryOutcome;
  statusCode?: number;
  error?: string;
  durationMs: number;
  /** The first 4 KiB of the response, as text. */
  responseBody: string;
  /** What was sent (or would have been, when refused); the caller masks what must not be shown. */
  requestHeaders: Record<string, string>;
}

const BODYLESS = new Set(['GET', 'HEAD']);

/**
 * Keep-alive pools, one per address policy so a socket opened while private addresses were
 * allowed is never reused by a request that forbids them. Every new connection still goes
 * through the connect-time address check; a reused one was checked when it was opened.
 */
// As many idle sockets kept as may be open: fresh attempts (up to VIGIL_WEBHOOK_CONCURRENCY to one
// origin) and retries (their own slots) together can exceed 64 to one receiver, and with fewer
// kept, every burst closed sockets and opened new ones (seen in the bench's profile with failures).
// Idle ones still close after the socket timeout.
const agentOptions = { keepAlive: true, keepAliveMsecs: 1000, maxSockets: 256, maxFreeSockets: 256, timeout: 60_000 };
const agents = {
  strict: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
  open: { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) },
};

/**
 * The headers and body one attempt sends: the channel's headers (less those the service owns),
 * then Content-Type, User-Agent, x-service-timestamp, webhook-id and the signatures.
 */
export function prepareRequest(
  request: WebhookRequest,
  options: DeliveryOptions,
): { method: string; headers: Record<string, string>; body: string } {
  const method = request.method.toUpperCase();
  const body = BODYLESS.has(method) ? '' : request.body;
  const timestamp = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (!SERVICE_HEADER_NAMES.has(name.toLowerCase())) headers[name] = value;
  }
  const hasContentType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  if (body !== '' && !hasContentType)
    headers['content-type'] = isJsonBody(body) ? 'application/json' : 'text/plain; charset=utf-8';
  headers['user-agent'] = options.userAgent;
  headers['x-service-timestamp'] = String(timestamp);
  headers['webhook-id'] = options.deliveryId;
  Object.assign(headers, signatureHeaders({ body, secret: options.secret, deliveryId: options.deliveryId, timestamp }));
  return { method, headers, body };
}

/**
 * What a URL string means for a request, worked out once per URL (a channel's URL that is not a
 * template renders to the same string every time): the refusal, or the request options less the
 * method and headers. No address is cached: a new connection still resolves the name through the
 * lookup and the policy, at connect time.
 */
type Target =
  | { refusal: string }
  | {
      refusal: null;
      https: boolean;
      options: http.RequestOptions;
      /** The Host header Node would set for these options. */
      host: string;
      /** `Basic …` from the URL's user and password, as Node would set it; null without them. */
      authorization: string | null;
      /** For undici: scheme, host and port (no user or password), and the path with its query. */
      origin: string;
      path: string;
    };

function targetOf(rawUrl: string, allowPrivate: boolean): Target {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { refusal: `refused: ${JSON.stringify(rawUrl)} is not a valid URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { refusal: `refused: only http and https URLs are delivered, not ${url.protocol}` };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // With the switch on, cloud metadata is still refused (strict, the policy below refuses it too).
  const metadata = allowPrivate && isIP(host) !== 0 ? metadataRange(host) : undefined;
  if (metadata) return { refusal: `refused: ${host} is a cloud metadata address (${metadata}): never delivered to` };
  if (!allowPrivate && isIP(host) !== 0) {
    // A literal address never goes through the lookup, so it is judged here.
    const verdict = checkAddress(host);
    if (!verdict.allowed) return { refusal: `${verdict.reason}${PRIVATE_HINT}` };
  }
  // What http.request(url, …) itself does with a URL (auth from user:password included).
  const options = urlToHttpOptions(url);
  const secure = url.protocol === 'https:';
  return {
    refusal: null,
    https: secure,
    options,
    host: hostHeader(options.hostname ?? 'localhost', options.port, secure ? 443 : 80),
    authorization: options.auth ? `Basic ${Buffer.from(options.auth).toString('base64')}` : null,
    origin: url.origin,
    path: options.path ?? '/',
  };
}

/** Node's Host header for a request: an IPv6 literal in brackets, the port unless it is the default. */
function hostHeader(hostname: string, port: http.RequestOptions['port'], defaultPort: number): string {
  const first = hostname.indexOf(':');
  const bracketed =
    first !== -1 && hostname.includes(':', first + 1) && !hostname.startsWith('[') ? `[${hostname}]` : hostname;
  return port && Number(port) !== defaultPort ? `${bracketed}:${String(port)}` : bracketed;
}

/** Targets by policy and URL; cleared when full, as rendered URLs with per-alert values never repeat. */
const targets = { strict: new Map<string, Target>(), open: new Map<string, Target>() };

export function cachedTarget(rawUrl: string, allowPrivate: boolean): Target {
  const cache = targets[allowPrivate ? 'open' : 'strict'];
  let target = cache.get(rawUrl);
  if (target === undefined) {
    target = targetOf(rawUrl, allowPrivate);
    if (cache.size >= 2_000) cache.clear();
    cache.set(rawUrl, target);
  }
  return target;
}

// Node sends header values as Latin-1; UTF-8 text goes out as its bytes, as receivers expect.
const wireValue = (value: string): string =>
  /[\u0080-\uffff]/.test(value) ? Buffer.from(value, 'utf8').toString('latin1') : value;

/** Methods Node sends an empty body for without a Content-Length (no body at all). */
const NO_EMPTY_LENGTH = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);

/**
 * The request's header lines as one flat list, stored by Node as the request is made: the same
 * lines Node writes for a header object (the headers, Host, Authorization from the URL unless one
 * is set, Content-Length), without storing and validating each header twice (setHeader, then
 * the head). Node still validates every name and value here, so CR/LF can never go out. A
 * DELETE with a body gets its Content-Length (from a header object Node sends none, and the body
 * goes out unframed).
 */
function headerList(prepared: ReturnType<typeof prepareRequest>, target: Target & { refusal: null }): string[] {
  const list: string[] = [];
  let authorization = false;
  for (const name in prepared.headers) {
    list.push(name, wireValue(prepared.headers[name]!));
    if (name.length === 13 && name.toLowerCase() === 'authorization') authorization = true;
  }
  // A channel's own Host header is never sent (the service sets it), so this is the only one.
  list.push('Host', target.host);
  if (target.authorization !== null && !authorization) list.push('Authorization', target.authorization);
  const body = BODYLESS.has(prepared.method) ? '' : prepared.body;
  if (body !== '' || !NO_EMPTY_LENGTH.has(prepared.method))
    list.push('Content-Length', String(Buffer.byteLength(body)));
  return list;
}

/** The outcome already says `refused`; the error says why, without repeating it. */
function refused(error: string, prepared: ReturnType<typeof prepareRequest>, started: number): DeliveryResult {
  return {
    outcome: 'refused',
    error,
    durationMs: Math.round(performance.now() - started),
    responseBody: '',
    requestHeaders: prepared.headers,
  };
}

/**
 * The header list undici sends: as `headerList`, less Content-Length (undici frames the body
 * itself, with the same rule: none for an empty body of a method without one). Each name and value
 * goes through Node's own checks first, so a header that cannot be sent is refused with the same
 * message as before, and CR/LF can never go out.
 */
function undiciHeaderList(prepared: ReturnType<typeof prepareRequest>, target: Target & { refusal: null }): string[] {
  const list: string[] = [];
  let authorization = false;
  for (const name in prepared.headers) {
    const value = wireValue(prepared.headers[name]!);
    validateHeaderName(name);
    validateHeaderValue(name, value);
    list.push(name, value);
    if (name.length === 13 && name.toLowerCase() === 'authorization') authorization = true;
  }
  list.push('Host', target.host);
  if (target.authorization !== null && !authorization) list.push('Authorization', target.authorization);
  return list;
}

/** Which HTTP client sends: undici in production; node:http kept for the differential test. */
export type DeliveryClient = 'undici' | 'node';

/** Sends one attempt. Never throws: every way it can end is a result. Redirects are not followed. */
export function deliverWebhook(request: WebhookRequest, options: DeliveryOptions): Promise<DeliveryResult> {
  return deliverWebhookWith('undici', request, options);
}

/** deliverWebhook through a chosen client; only the differential test picks node:http. */
export async function deliverWebhookWith(
  client: DeliveryClient,
  request: WebhookRequest,
  options: DeliveryOptions,
): Promise<DeliveryResult> {
  const started = performance.now();
  let prepared: ReturnType<typeof prepareRequest>;
  try {
    prepared = prepareRequest(request, options);
  } catch (error) {
    // A secret that cannot sign (a malformed whsec_) would fail on every retry too.
    const message = error instanceof Error ? error.message : String(error);
    return {
      outcome: 'refused',
      error: `refused: ${message}`,
      durationMs: Math.round(performance.now() - started),
      responseBody: '',
      requestHeaders: {},
    };
  }
  const target = cachedTarget(request.url, options.allowPrivate);
  if (target.refusal !== null) return refused(target.refusal, prepared, started);
  if (client === 'undici') {
    let headers: string[];
    try {
      headers = undiciHeaderList(prepared, target);
    } catch (error) {
      // A header name or value that cannot be sent; no retry changes that.
      return refused(`refused: ${describe(error)}`, prepared, started);
    }
    const body = BODYLESS.has(prepared.method) || prepared.body === '' ? null : prepared.body;
    return sendUndici(
      {
        origin: target.origin,
        path: target.path,
        method: prepared.method,
        headers,
        body,
        requestHeaders: prepared.headers,
      },
      options,
      started,
    );
  }
  let req: http.ClientRequest;
  try {
    const policy = options.allowPrivate ? 'open' : 'strict';
    const pool = agents[policy];
    req = (target.https ? https : http).request({
      ...target.options,
      method: prepared.method,
      headers: headerList(prepared, target),
      agent: target.https ? pool.https : pool.http,
      // Every new connection resolves and checks its addresses here (the default resolver's
      // lookup is built once per policy; a custom one per attempt).
      lookup: (options.resolve
        ? connectLookup(options.resolve, !options.allowPrivate)
        : defaultLookups[policy]) as unknown as http.RequestOptions['lookup'],
    });
  } catch (error) {
    // Node refuses a header name or value it cannot send; no retry changes that.
    return refused(`refused: ${describe(error)}`, prepared, started);
  }
  return send(req, prepared, options, started);
}

/**
 * One request in flight: what its listeners need. The listeners are module-level functions that
 * find it on the request (or its response), so an attempt creates no closures of its
 * own, only this object (the event loop runs thousands of attempts a second).
 */
interface InFlight {
  req: http.ClientRequest;
  prepared: ReturnType<typeof prepareRequest>;
  options: DeliveryOptions;
  /** performance.now() when the attempt began. */
  started: number;
  done: (result: DeliveryResult) => void;
  settled: boolean;
  statusCode: number | undefined;
  chunks: Buffer[];
  received: number;
  timer: NodeJS.Timeout | undefined;
  onAbort: (() => void) | undefined;
}

const IN_FLIGHT = Symbol('vigil.webhookInFlight');
type Tagged = (http.ClientRequest | http.IncomingMessage) & { [IN_FLIGHT]?: InFlight };

function finish(state: InFlight, error?: unknown, complete = false): void {
  if (state.settled) return;
  state.settled = true;
  clearTimeout(state.timer);
  if (state.onAbort) state.options.signal?.removeEventListener('abort', state.onAbort);
  if (!complete) state.req.destroy();
  state.done(
    attemptResult(state.statusCode, state.chunks, state.started, state.prepared.headers, () =>
      error instanceof AddressRefused
        ? { outcome: 'refused', error: error.message }
        : { outcome: 'failed', error: describe(error) },
    ),
  );
}

const stateOf = (emitter: http.ClientRequest | http.IncomingMessage): InFlight => (emitter as Tagged)[IN_FLIGHT]!;

function onTimeout(state: InFlight): void {
  state.req.destroy(new AttemptTimedOut(`timed out after ${state.options.timeoutMs} ms`));
}
function onRequestError(this: http.ClientRequest, error: Error): void {
  finish(stateOf(this), error);
}
function onResponseData(this: http.IncomingMessage, chunk: Buffer): void {
  const state = stateOf(this);
  if (state.received < RESPONSE_BODY_LIMIT) state.chunks.push(chunk);
  state.received += chunk.length;
  if (state.received >= RESPONSE_BODY_LIMIT) finish(state);
}
function onResponseEnd(this: http.IncomingMessage): void {
  const state = stateOf(this);
  finish(state, undefined, state.received < RESPONSE_BODY_LIMIT);
}
function onResponseError(this: http.IncomingMessage, error: Error): void {
  finish(stateOf(this), error);
}
function onResponseClose(this: http.IncomingMessage): void {
  finish(stateOf(this));
}
function onResponse(this: http.ClientRequest, res: http.IncomingMessage): void {
  const state = stateOf(this);
  state.statusCode = res.statusCode;
  (res as Tagged)[IN_FLIGHT] = state;
  res.on('data', onResponseData);
  res.on('end', onResponseEnd);
  res.on('error', onResponseError);
  res.on('close', onResponseClose);
}

function send(
  req: http.ClientRequest,
  prepared: ReturnType<typeof prepareRequest>,
  options: DeliveryOptions,
  started: number,
): Promise<DeliveryResult> {
  return new Promise<DeliveryResult>((done) => {
    const state: InFlight = {
      req,
      prepared,
      options,
      started,
      done,
      settled: false,
      statusCode: undefined,
      chunks: [],
      received: 0,
      timer: undefined,
      onAbort: undefined,
    };
    (req as Tagged)[IN_FLIGHT] = state;
    state.timer = setTimeout(onTimeout, options.timeoutMs, state);
    if (options.signal) {
      const onAbort = () => req.destroy(new AttemptAborted('aborted'));
      state.onAbort = onAbort;
      if (options.signal.aborted) onAbort();
      else options.signal.addEventListener('abort', onAbort, { once: true });
    }
    req.on('error', onRequestError);
    req.on('response', onResponse);
    req.end(BODYLESS.has(prepared.method) ? undefined : prepared.body);
  });
}
