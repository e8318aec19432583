import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { statusPageInputSchema, statusPageSchema } from '#domain';
import { errorResponses, zodRoutes } from '#http';
import type { StatusPageService } from '../console/status-page-service.ts';
import { idParams } from './schemas.ts';

const pageJson = statusPageSchema.meta({ id: 'StatusPage' });

/** POST|GET|PUT|DELETE /v1/status-pages: what the public page at /status/{slug} shows. */
export function statusPageRoutes(app: FastifyInstance, service: StatusPageService): void {
  const routes = zodRoutes(app);
  const tags = ['status pages'];
  const read = { access: { minRole: 'READ_ONLY' as const } };
  const write = { access: { minRole: 'READ_WRITE' as const } };
  // Writes only through the command runner: ?dryRun=true runs them in full and appends nothing.
  const dryWrite = { ...write, dryRun: true };

  routes.post('/v1/status-pages', {
    config: dryWrite,
    schema: {
      tags,
      summary: 'Create a public status page; slugs are unique across all accounts (409 when taken)',
      body: statusPageInputSchema,
      response: { 201: pageJson, ...errorResponses(400, 401, 403, 404, 409, 429) },
    },
    handler: async (request, reply) => reply.code(201).send(await service.create(request.access!, request.body)),
  });

  routes.get('/v1/status-pages', {
    config: read,
    schema: {
      tags,
      summary: 'Status pages of the account, oldest first',
      response: { 200: z.array(pageJson), ...errorResponses(401, 403, 429) },
    },
    handler: async (request) => service.list(request.access!),
  });

  routes.get('/v1/status-pages/:id', {
    config: read,
    schema: {
      tags,
      summary: 'One status page',
      params: idParams,
      response: { 200: pageJson, ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request) => service.get(request.access!, request.params.id),
  });

  routes.put('/v1/status-pages/:id', {
    config: dryWrite,
    schema: {
      tags,
      summary: 'Replace a status page; a new slug is reserved first and the old one released',
      params: idParams,
      body: statusPageInputSchema,
      response: { 200: pageJson, ...errorResponses(400, 401, 403, 404, 409, 429) },
    },
    handler: async (request) => service.update(request.access!, request.params.id, request.body),
  });

  routes.delete('/v1/status-pages/:id', {
    config: dryWrite,
    schema: {
      tags,
      summary: 'Delete a status page; its slug becomes free',
      params: idParams,
      response: { 204: z.null(), ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request, reply) => {
      await service.delete(request.access!, request.params.id);
      return reply.code(204).send(null);
    },
  });
}
