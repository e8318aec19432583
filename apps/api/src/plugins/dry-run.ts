import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { z } from 'zod';
import { runDry } from '../request-context.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route writes only through the command runner, so `?dryRun=true` can run it in full and
     * append nothing. Routes with other effects (keys shown once, runs, test sends) leave it unset.
     */
    dryRun?: boolean;
  }
}

export const DRY_RUN_HEADER = 'vigil-dry-run';

const dryRunParam = z
  .enum(['true', 'false'])
  .optional()
  .describe(
    'true: validate and decide the request exactly as it would be applied, and answer what would happen ' +
      '(200 with the resource as it would be, 204 for a delete, or the error the real request would get), ' +
      `writing nothing. The answer carries ${DRY_RUN_HEADER}: true.`,
  );

const isDry = (request: FastifyRequest) => (request.query as { dryRun?: string } | undefined)?.dryRun === 'true';

/**
 * `?dryRun=true` on every route whose config says `dryRun: true`: one mechanism for all of them.
 * The handler runs inside a dry-run scope, where the command runner decides but does not append,
 * so a dry run meets every lookup, validation and decision a real request does (404, 400, 409
 * included) and changes nothing. A create answers 200 instead of 201: nothing was created.
 */
export function installDryRun(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.config?.dryRun !== true) return;
    const schema = (route.schema ?? {}) as Record<string, unknown>;
    const query = schema.querystring;
    if (query !== undefined && !(query instanceof z.ZodObject))
      throw new Error(`${route.url}: dryRun needs an object query schema`);
    schema.querystring =
      query instanceof z.ZodObject ? query.extend({ dryRun: dryRunParam }) : z.strictObject({ dryRun: dryRunParam });
    const response = schema.response as Record<number, unknown> | undefined;
    if (response?.[201] !== undefined) response[200] ??= response[201];
    route.schema = schema;

    const handler = route.handler as (...args: Parameters<RouteHandlerMethod>) => unknown;
    route.handler = function dryRunnable(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      if (!isDry(request)) return handler.call(this, request, reply);
      void reply.header(DRY_RUN_HEADER, 'true');
      return runDry(() => handler.call(this, request, reply));
    } as RouteHandlerMethod;
    const onSend = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      if (reply.statusCode === 201 && isDry(request)) void reply.code(200);
      return payload;
    };
    route.onSend = [onSend, ...[route.onSend ?? []].flat()] as typeof route.onSend;
  });
}
