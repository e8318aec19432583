import http from 'node:http';
import { isIP } from 'node:net';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { TLSSocket } from 'node:tls';
import zlib from 'node:zlib';
import type { ApiRequest, CheckResultInput, UrlRequest } from '#domain';
import { checkLiteral, guardedLookup } from './address.ts';
import { judgeAssertions } from './assertions.ts';
import { errorText, type RawRun } from './result.ts';
import { substitute } from './secrets.ts';
import type { RawArtifact } from './types.ts';

/** Bodies are read up to this size for assertions; the rest is dropped. */
export const RESPONSE_BODY_CAP = 1024 * 1024;
const MAX_REDIRECTS = 10;
const USER_AGENT = 'Vigil-Runner/1 (+https://github.com/vigil)';
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

type Timings = NonNullable<CheckResultInput['timings']>;

interface Hop {
  statusCode: number;
  statusText: string;
  headers: Record<string, string>;
  body: string;
  location?: string;
  timings: Timings;
  ssl?: { daysRemaining: number; domain: string };
}

interface Prepared {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: Buffer;
  /** `user:password` strings put in an Authorization header, so their base64 is scrubbed too. */
  credentials: string[];
}

/** What the runner sends on its own; everything else in a request was set by the check. */
const RUNNER_HEADERS: Readonly<Record<string, string>> = { 'user-agent': USER_AGENT, accept: '*/*' };

const basic = (credential: string) => `Basic ${Buffer.from(credential).toString('base64')}`;

function decodedUserinfo(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

const CONTENT_TYPES: Record<ApiRequest['bodyType'], string | undefined> = {
  NONE: undefined,
  JSON: 'application/json',
  FORM: 'application/x-www-form-urlencoded',
  RAW: 'text/plain; charset=utf-8',
  GRAPHQL: 'application/json',
};

/** A GraphQL body is sent as JSON: a JSON object as written, anything else as the query. */
function graphqlBody(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return body;
  } catch {
    // not JSON: the text is the query itself
  }
  return JSON.stringify({ query: body });
}

function prepare(checkType: 'API' | 'URL', request: ApiRequest | UrlRequest, vars: Record<string, string>): Prepared {
  const api = checkType === 'API' ? (request as ApiRequest) : undefined;
  const rawUrl = substitute(request.url, vars);
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new Error(`url: ${JSON.stringify(rawUrl)} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`url: only http and https are supported, not ${url.protocol}`);
  const headers: Record<string, string> = { ...RUNNER_HEADERS };
  const credentials: string[] = [];
  // Credentials in the URL become a header the runner controls (and drops on a redirect to
  // another origin), and never appear in the URL printed in errors.
  if (url.username !== '' || url.password !== '') {
    const credential = `${decodedUserinfo(url.username)}:${decodedUserinfo(url.password)}`;
    credentials.push(credential);
    headers.authorization = basic(credential);
    url.username = '';
    url.password = '';
  }
  if (!api) return { method: 'GET', url, headers, credentials };

  for (const { key, value } of api.queryParameters)
    url.searchParams.append(substitute(key, vars), substitute(value, vars));
  for (const { key, value } of api.headers) headers[substitute(key, vars).toLowerCase()] = substitute(value, vars);
  if (api.basicAuth) {
    const credential = `${substitute(api.basicAuth.username, vars)}:${substitute(api.basicAuth.password, vars)}`;
    credentials.push(credential);
    headers.authorization = basic(credential);
  }
  let body: Buffer | undefined;
  if (api.bodyType !== 'NONE' && api.method !== 'HEAD') {
    const text = substitute(api.body, vars);
    body = Buffer.from(api.bodyType === 'GRAPHQL' ? graphqlBody(text) : text);
    const type = CONTENT_TYPES[api.bodyType];
    if (type && headers['content-type'] === undefined) headers['content-type'] = type;
  }
  if (body) headers['content-length'] = String(body.length);
  return { method: api.method, url, headers, credentials, ...(body ? { body } : {}) };
}

function decoded(res: http.IncomingMessage): NodeJS.ReadableStream {
  switch ((res.headers['content-encoding'] ?? '').toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return res.pipe(zlib.createGunzip());
    case 'deflate':
      return res.pipe(zlib.createInflate());
    case 'br':
      return res.pipe(zlib.createBrotliDecompress());
    default:
      return res;
  }
}

function flatHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function certificateOf(socket: TLSSocket, domain: string): Hop['ssl'] {
  const cert = socket.getPeerCertificate?.();
  if (!cert || !cert.valid_to) return undefined;
  const expires = Date.parse(cert.valid_to);
  if (Number.isNaN(expires)) return undefined;
  return { daysRemaining: Math.floor((expires - Date.now()) / 86_400_000), domain: domain.slice(0, 253) };
}

/** One request, no redirects, with its phases measured. */
function send(prepared: Prepared, skipSSL: boolean, allowPrivate: boolean, signal: AbortSignal): Promise<Hop> {
  const refused = checkLiteral(prepared.url.hostname, allowPrivate);
  if (refused) return Promise.reject(refused);
  return new Promise<Hop>((resolve, reject) => {
    const now = () => performance.now();
    const start = now();
    let socketAt: number | undefined;
    let lookupAt: number | undefined;
    let connectAt: number | undefined;
    let secureAt: number | undefined;
    const secure = prepared.url.protocol === 'https:';
    const bareHost = prepared.url.hostname.replace(/^\[|\]$/g, '');
    const options: https.RequestOptions = {
      method: prepared.method,
      headers: prepared.headers,
      // A fresh connection per run: the timings are the target's, not a pooled socket's.
      agent: false,
      lookup: guardedLookup(allowPrivate, () => (lookupAt = now())) as unknown as http.RequestOptions['lookup'],
      signal,
      // SNI carries names only (RFC 6066), never an IP literal.
      ...(secure ? { rejectUnauthorized: !skipSSL, ...(isIP(bareHost) ? {} : { servername: bareHost }) } : {}),
    };
    const req = (secure ? https : http).request(prepared.url, options);
    req.on('socket', (socket) => {
      socketAt = now();
      socket.once('connect', () => (connectAt = now()));
      socket.once('secureConnect', () => (secureAt = now()));
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const firstByteAt = now();
      const ssl = secure ? certificateOf(res.socket as TLSSocket, prepared.url.hostname) : undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      const finish = () => {
        const end = now();
        const ready = secureAt ?? connectAt ?? socketAt ?? start;
        const timings: Timings = {
          wait: (socketAt ?? start) - start,
          dns: lookupAt === undefined ? 0 : lookupAt - (socketAt ?? start),
          tcp: connectAt === undefined ? 0 : connectAt - (lookupAt ?? socketAt ?? start),
          firstByte: firstByteAt - ready,
          download: end - firstByteAt,
          total: end - start,
          ...(secureAt !== undefined && connectAt !== undefined ? { connection: secureAt - connectAt } : {}),
        };
        const location = res.headers.location;
        resolve({
          statusCode: res.statusCode ?? 0,
          statusText: res.statusMessage ?? '',
          headers: flatHeaders(res.headers),
          body: Buffer.concat(chunks).toString('utf8'),
          timings,
          ...(location ? { location } : {}),
          ...(ssl ? { ssl } : {}),
        });
        res.destroy();
      };
      const stream = prepared.method === 'HEAD' ? res : decoded(res);
      stream.on('data', (chunk: Buffer) => {
        if (size >= RESPONSE_BODY_CAP) return;
        chunks.push(chunk.subarray(0, RESPONSE_BODY_CAP - size));
        size += chunk.length;
        if (size >= RESPONSE_BODY_CAP) finish();
      });
      stream.on('end', finish);
      stream.on('error', (error) => (size > 0 ? finish() : reject(error)));
      res.on('error', reject);
    });
    req.end(prepared.body);
  });
}

/**
 * The request after a redirect: 303 (and 301/302 of a POST) become a GET without a body, as
 * fetch does. Everything the check set (headers, credentials, body) was written for its own
 * origin: like browsers and curl, a redirect to another scheme, host or port gets only the
 * runner's own headers, unless the check opted in with followRedirectsWithCredentials.
 */
function redirected(prepared: Prepared, status: number, location: string, keepAcrossOrigins: boolean): Prepared {
  const url = new URL(location, prepared.url);
  // The target chose this URL: credentials in it are its own, not sent from the check.
  url.username = '';
  url.password = '';
  const toGet = status === 303 || ((status === 301 || status === 302) && prepared.method === 'POST');
  const method = toGet && prepared.method !== 'HEAD' ? 'GET' : prepared.method;
  if (url.origin !== prepared.url.origin && !keepAcrossOrigins)
    return { method, url, headers: { ...RUNNER_HEADERS }, credentials: prepared.credentials };
  const { body, ...kept } = prepared;
  const headers = { ...prepared.headers };
  if (toGet) {
    delete headers['content-type'];
    delete headers['content-length'];
  }
  return { ...kept, method, url, headers, ...(toGet || !body ? {} : { body }) };
}

export async function runHttp(
  checkType: 'API' | 'URL',
  request: ApiRequest | UrlRequest,
  vars: Record<string, string>,
  allowPrivate: boolean,
  signal: AbortSignal,
): Promise<RawRun> {
  const start = performance.now();
  const elapsed = () => performance.now() - start;
  let prepared: Prepared;
  try {
    prepared = prepare(checkType, request, vars);
  } catch (error) {
    return { responseTime: 0, error: errorText(error), assertions: [] };
  }
  const followWithCredentials = checkType === 'API' && (request as ApiRequest).followRedirectsWithCredentials;
  const { credentials } = prepared;
  let hop: Hop;
  try {
    hop = await send(prepared, request.skipSSL, allowPrivate, signal);
    for (let redirects = 0; request.followRedirects && REDIRECTS.has(hop.statusCode) && hop.location; redirects++) {
      if (redirects === MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects`);
      prepared = redirected(prepared, hop.statusCode, hop.location, followWithCredentials);
      hop = await send(prepared, request.skipSSL, allowPrivate, signal);
    }
  } catch (error) {
    return {
      responseTime: elapsed(),
      error: `${prepared.method} ${prepared.url.href}: ${errorText(error)}`,
      assertions: [],
      credentials,
    };
  }
  const responseTime = elapsed();
  const assertions = judgeAssertions(checkType, request.assertions, {
    statusCode: hop.statusCode,
    headers: hop.headers,
    body: hop.body,
    responseTime,
  });
  let implicitFailure: string | undefined;
  if (request.assertions.length === 0) {
    // With no assertion, a URL check passes on any 2xx and an API check on anything below 400.
    const ok = checkType === 'URL' ? hop.statusCode >= 200 && hop.statusCode < 300 : hop.statusCode < 400;
    if (!ok) implicitFailure = `status code ${hop.statusCode} ${checkType === 'URL' ? 'is not 2xx' : 'is 400 or more'}`;
  }
  // An API check that failed on its response keeps the body (already capped at 1 MiB) as evidence;
  // buildOutcome scrubs it of secrets like every other text of the run.
  const failedOnResponse = implicitFailure !== undefined || assertions.some((outcome) => !outcome.passed);
  const artifacts: RawArtifact[] =
    checkType === 'API' && failedOnResponse
      ? [
          {
            kind: 'response-body',
            contentType: 'text/plain; charset=utf-8',
            body: Buffer.from(hop.body, 'utf8'),
            name: `${prepared.method} ${prepared.url.href}`.slice(0, 256),
          },
        ]
      : [];
  return {
    responseTime,
    assertions,
    credentials,
    ...(implicitFailure ? { implicitFailure } : {}),
    ...(artifacts.length > 0 ? { artifacts } : {}),
    statusCode: hop.statusCode >= 100 && hop.statusCode <= 999 ? hop.statusCode : undefined,
    statusText: hop.statusText,
    timings: { ...hop.timings, total: responseTime },
    ...(hop.ssl ? { ssl: hop.ssl } : {}),
  };
}
