import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isAppError, RateLimitedError } from '#core';

/** The one error body every endpoint answers with. */
export const errorBodySchema = z
  .object({
    statusCode: z.number().int(),
    error: z.string(),
    message: z.string(),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof errorBodySchema>;

export function errorBody(statusCode: number, message: string): ErrorBody {
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message };
}

export const describedStatuses: Record<number, string> = {
  400: 'Validation failed (the message names the field), an unknown body field or query parameter (named, with the nearest known name), an id longer than its limit, or a malformed URL or header.',
  401: 'No API key, or an unknown or deleted key.',
  402: 'The account plan does not allow this.',
  403: 'The key has no access to the account, or its role is too low.',
  404: 'Unknown in this account.',
  405: 'The path exists but not with this method; Allow lists the methods it has.',
  409: 'Conflict with the current state.',
  413: 'The body is too large.',
  414: 'The URL, or one path segment of it, is too long.',
  415: 'The Content-Type or Content-Encoding is not one this route reads (bodies may be sent as gzip, deflate or br).',
  429: 'Rate-limited; see Retry-After.',
  431: 'The request headers are too large.',
  503: 'A dependency (store, bus) is unavailable; retry later.',
};

/** Response schemas for the error statuses a route can answer, for the OpenAPI document. */
export function errorResponses(...statuses: number[]): Record<number, typeof errorBodySchema> {
  return Object.fromEntries(
    statuses.map((status) => [status, errorBodySchema.describe(describedStatuses[status] ?? 'Error')]),
  );
}

/** Translates a zod issue path like ['body', 'key'] and message into "key: …". */
function describeValidation(error: FastifyError): string {
  if (hasZodFastifySchemaValidationErrors(error)) {
    return error.validation
      .map((issue) => {
        const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
        const where = path || (error.validationContext ?? 'request');
        return `${where}: ${issue.message}`;
      })
      .join('; ');
  }
  return error.message;
}

/** Fastify's own client-error codes and the status each maps to. */
const fastifyClientErrors: Record<string, number> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 413,
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 415,
  FST_ERR_CTP_INVALID_JSON_BODY: 400,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 400,
  FST_ERR_VALIDATION: 400,
};

/** Longest URL accepted; longer gets 414 (Node's header limit would otherwise answer 431 near 16 KiB). */
export const MAX_URL_LENGTH = 8192;

/** Fastify's router errors, answered before any route runs; messages never echo the raw path. */
export function frameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  // Router errors skip the onRequest hook that sets this on every other response.
  void reply.header('x-content-type-options', 'nosniff');
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    void reply.code(414).send(errorBody(414, 'A path segment is too long'));
  } else if (error.code === 'FST_ERR_BAD_URL') {
    void reply.code(400).send(errorBody(400, 'The URL path is not valid percent-encoding'));
  } else {
    reply.log.error({ err: error }, 'router error');
    void reply.code(500).send(errorBody(500, publicServerMessage(500)));
  }
}

/**
 * Requests Node's parser refuses (over-long headers, malformed header lines, timeouts) never reach
 * fastify; they get the same error body here, written straight to the socket, then it is closed.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const message =
    status === 431
      ? 'The request headers (with the URL) are larger than the server accepts'
      : status === 408
        ? 'The request was not received in time'
        : 'The request is malformed: a header line or the request line is not valid HTTP';
  const body = JSON.stringify(errorBody(status, message));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      'X-Content-Type-Options: nosniff\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Installs the error and not-found handlers. Returns what the server's one onRequest hook calls for
 * a request that matched no route: it answers it (true) or lets it go on (false). A hook of its own
 * (async) cost a promise and a hook-runner turn on every request, matched or not.
 */
export function installErrorHandlers(app: FastifyInstance): (request: FastifyRequest, reply: FastifyReply) => boolean {
  const paths = routeMatcher(app);
  const notAllowed = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const allowed = paths.methodsFor(request.url.split('?')[0] ?? '');
    // A route of this method that passed the request on (callNotFound) makes it a plain 404.
    if (allowed.length === 0 || allowed.includes(request.method)) return false;
    void reply
      .code(405)
      .header('allow', allowed.join(', '))
      .send(errorBody(405, `${request.method} is not allowed here; this path allows ${allowed.join(', ')}`));
    return true;
  };
  const notFound = (request: FastifyRequest, reply: FastifyReply): void => {
    if (notAllowed(request, reply)) return;
    void reply.code(404).send(errorBody(404, `No route for ${request.method} at this path`));
  };
  // Routes that pass a request on (reply.callNotFound(), as the console does for API paths).
  app.setNotFoundHandler(notFound);

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (isAppError(error)) {
      if (error instanceof RateLimitedError) void reply.header('retry-after', String(error.retryAfterSeconds));
      if (error.statusCode >= 500) {
        request.log.error({ err: error }, 'request failed');
        return reply.code(error.statusCode).send(errorBody(error.statusCode, publicServerMessage(error.statusCode)));
      }
      return reply.code(error.statusCode).send(errorBody(error.statusCode, error.message));
    }
    if (error.validation || hasZodFastifySchemaValidationErrors(error)) {
      return reply.code(400).send(errorBody(400, describeValidation(error)));
    }
    if (isResponseSerializationError(error)) {
      request.log.error({ err: error, issues: error.cause.issues }, 'response did not match its schema');
      return reply.code(500).send(errorBody(500, publicServerMessage(500)));
    }
    const mapped = error.code ? fastifyClientErrors[error.code] : undefined;
    const status =
      mapped ?? (error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : undefined);
    if (status !== undefined) {
      return reply.code(status).send(errorBody(status, error.message));
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send(errorBody(500, publicServerMessage(500)));
  });
  // Route first, then parse: fastify reads the body of a request that matched no route too (for the
  // not-found handler), so a body that does not parse made an unknown path a 400. Answered in
  // onRequest, before parsing, an unknown route is a 404 (or a 405 with Allow) whatever its body.
  return (request, reply) => {
    if (!request.is404) return false;
    notFound(request, reply);
    return true;
  };
}

function publicServerMessage(status: number): string {
  return status === 503 ? 'A dependency is unavailable; retry later.' : 'Internal error; it has been logged.';
}

/** Which methods each registered path pattern has, to answer 405 with Allow instead of 404. */
function routeMatcher(app: FastifyInstance) {
  const routes: { pattern: RegExp; method: string; fixed: number }[] = [];
  app.addHook('onRoute', (route) => {
    // Catch-alls (static files, the console) would make every path look like it had their methods.
    if (route.url.includes('*')) return;
    const pattern = new RegExp(
      '^' +
        route.url
          .replace(/\/$/, '')
          .split('/')
          .map((part) => (part.startsWith(':') ? '[^/]+' : escapeRegExp(part)))
          .join('/') +
        '/?$',
    );
    // Static segments count, so /things/preview answers with its own methods, not those of /things/:id.
    const fixed = route.url.split('/').filter((part) => part && !part.startsWith(':')).length;
    for (const method of [route.method].flat()) routes.push({ pattern, method, fixed });
  });
  return {
    methodsFor(path: string): string[] {
      const matching = routes.filter((route) => route.pattern.test(path));
      const best = Math.max(...matching.map((route) => route.fixed));
      const methods = matching.filter((route) => route.fixed === best).map((route) => route.method);
      return [...new Set(methods)].sort();
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
