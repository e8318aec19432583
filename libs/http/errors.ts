import { STATUS_CODES } from 'node:http';
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

const describedStatuses: Record<number, string> = {
  400: 'Validation failed; the message names the field.',
  401: 'No API key, or an unknown or deleted key.',
  402: 'The account plan does not allow this.',
  403: 'The key has no access to the account, or its role is too low.',
  404: 'Unknown in this account.',
  409: 'Conflict with the current state.',
  413: 'The body is too large.',
  429: 'Rate-limited; see Retry-After.',
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
  FST_ERR_CTP_EMPTY_JSON_BODY: 400,
  FST_ERR_CTP_INVALID_JSON_BODY: 400,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 400,
  FST_ERR_VALIDATION: 400,
};

export function installErrorHandlers(app: FastifyInstance): void {
  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    void reply.code(404).send(errorBody(404, `Route ${request.method} ${request.url.split('?')[0]} not found`));
  });

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
}

function publicServerMessage(status: number): string {
  return status === 503 ? 'A dependency is unavailable; retry later.' : 'Internal error; it has been logged.';
}
