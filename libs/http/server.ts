import { randomUUID } from 'node:crypto';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Registry } from 'prom-client';
import type { Logger } from '#core';
import { clientErrorHandler, errorBody, frameworkError, installErrorHandlers, MAX_URL_LENGTH } from './errors.ts';
import { installHealth, type ReadinessCheck } from './health.ts';
import { installContentDecoding } from './content-encoding.ts';
import { installJsonBodyParser } from './json-body.ts';
import { createRequestMetrics, installMetrics, recordRequest } from './metrics.ts';
import {
  createOpenApiTransform,
  createOpenApiTransformObject,
  type DescribeRoute,
  type PatchDocument,
} from './openapi.ts';
import { installRequestLogger } from './request-logger.ts';
import { responseSerializerCompiler } from './serializer.ts';
import { installStrictInput } from './strict-input.ts';
import { validatorCompiler } from './validation.ts';

export interface HttpServerOptions {
  log: Logger;
  title: string;
  version: string;
  description?: string;
  readiness: ReadinessCheck[];
  metrics: Registry;
  /** Largest accepted body in bytes (larger gets 413). */
  bodyLimit?: number;
  trustProxy?: boolean;
  /** What the app adds to each operation of the OpenAPI document (required role, account header…). */
  describeRoute?: DescribeRoute;
  /** Writes rules only the app knows into the finished document (e.g. the runtimes that exist). */
  patchDocument?: PatchDocument;
  /** Extra OpenAPI components, e.g. security schemes beside the bearer key. */
  securitySchemes?: Record<string, Record<string, unknown>>;
}

/**
 * A fastify instance wired with the project conventions: zod validation, one error handler,
 * OpenAPI at /openapi.json and /docs, /health, /ready and /metrics. Routes are added by the app.
 */
export async function createHttpServer(options: HttpServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    // pino's Logger and fastify's logger type differ only in generics.
    loggerInstance: options.log as FastifyBaseLogger,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    trustProxy: options.trustProxy ?? false,
    // Request lines are logged by the onResponse hook below, at a level that depends on the outcome.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_URL_LENGTH },
    frameworkErrors: frameworkError,
    clientErrorHandler,
  });
  app.setValidatorCompiler(validatorCompiler);
  // Before the document's hook (fastify-swagger) sees routes, so it documents the strict schemas.
  installStrictInput(app);
  // A one-pass writer held to the zod path by a differential test; zod itself where it cannot be exact.
  app.setSerializerCompiler(responseSerializerCompiler);
  installJsonBodyParser(app);
  installContentDecoding(app);
  installRequestLogger(app);
  const metrics = createRequestMetrics(options.metrics);

  const unknownRoute = installErrorHandlers(app);
  // One onRequest hook for every request, and these two hooks take a callback rather than being
  // async: nothing in them waits, and each async hook costs a promise and a microtask turn.
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    // No response of ours is meant to be sniffed into another type (a JSON error read as HTML, say).
    void reply.header('x-content-type-options', 'nosniff');
    // Answered here: fastify must not be told to go on (no done()).
    if (request.url.length > MAX_URL_LENGTH)
      return void reply.code(414).send(errorBody(414, `The URL is longer than ${MAX_URL_LENGTH} characters`));
    // After the headers above: an unknown route answered here still carries its request id and nosniff.
    if (unknownRoute(request, reply)) return;
    done();
  });
  // Request logs at info only when something went wrong; at 10k req/s a line per request costs more than the request.
  // One hook for the metrics and the log line: a hook per concern costs a turn of fastify's hook runner each.
  app.addHook('onResponse', (request, reply, done) => {
    recordRequest(metrics, request, reply);
    logRequest(request, reply);
    done();
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: options.title, version: options.version, description: options.description },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: vgl_…' },
          ...options.securitySchemes,
        },
      },
      security: [{ bearerAuth: [] }],
    },
    transform: createOpenApiTransform(options.describeRoute),
    transformObject: createOpenApiTransformObject(options.patchDocument),
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list' },
    // swagger-ui's page loads only its own files (no inline script); React sets inline styles, and
    // its icons and our logo are data: images. The document comes from /docs/json, same origin.
    staticCSP:
      "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
      "connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; " +
      "frame-ancestors 'none'",
    theme: { title: `${options.title} reference` },
    logo: { type: 'image/svg+xml', content: Buffer.from(logoSvg(options.title)) },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  installHealth(app, options.readiness);
  installMetrics(app, options.metrics);
  return app;
}

/** Tokens that are credentials in a URL path: a heartbeat's ping token, a check trigger's token. */
const URL_TOKENS = /(\/ping\/|\/trigger\/)[^/?#]+/g;

/** The URL as a log line may show it: URL credentials blanked, as pino blanks keys and secrets. */
export function redactUrl(url: string): string {
  return url.replace(URL_TOKENS, '$1[redacted]');
}

/** The request line: at error for 5xx, info for 4xx, debug otherwise (built only when it will be written). */
function logRequest(request: FastifyRequest, reply: FastifyReply): void {
  if (reply.statusCode < 400 && !(request.log as Logger).isLevelEnabled('debug')) return;
  const entry = {
    method: request.method,
    url: redactUrl(request.url),
    statusCode: reply.statusCode,
    ms: Math.round(reply.elapsedTime * 10) / 10,
  };
  if (reply.statusCode >= 500) request.log.error(entry, 'request completed');
  else if (reply.statusCode >= 400) request.log.info(entry, 'request completed');
  else request.log.debug(entry, 'request completed');
}

/** A text logo for /docs, in place of the framework's. */
function logoSvg(title: string): string {
  const text = title.replace(/[<>&"]/g, '');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="220" height="40"><text x="0" y="30" ` +
    `font-family="sans-serif" font-size="26" font-weight="bold" fill="#ffffff">${text}</text></svg>`
  );
}

/** The typed view of an instance for route modules. */
export function zodRoutes(app: FastifyInstance) {
  return app.withTypeProvider<ZodTypeProvider>();
}
