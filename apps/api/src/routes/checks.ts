import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  checkGroupInputSchema,
  checkGroupSchema,
  checkInputSchema,
  checkResponseSchema,
  checkTypeSchema,
  maskGroupVariables,
} from '#domain';
import { errorResponses, zodRoutes } from '#http';
import type { ApiServices } from '../services/index.ts';
import { idParams, pageQuerySchema } from './schemas.ts';

const checkJson = checkResponseSchema.meta({ id: 'Check' });
const groupJson = checkGroupSchema.meta({ id: 'CheckGroup' });
const listQuery = pageQuerySchema.extend({ checkType: checkTypeSchema.optional(), tag: z.string().max(64).optional() });

export function checkRoutes(app: FastifyInstance, services: ApiServices): void {
  const routes = zodRoutes(app);
  const tags = ['checks'];
  const read = { access: { minRole: 'READ_ONLY' as const } };
  const write = { access: { minRole: 'READ_WRITE' as const } };
  // Writes only through the command runner: ?dryRun=true runs them in full and appends nothing.
  const dryWrite = { ...write, dryRun: true };

  routes.post('/v1/checks', {
    config: dryWrite,
    schema: {
      tags,
      summary: 'Register a check',
      body: checkInputSchema,
      response: { 201: checkJson, ...errorResponses(400, 401, 403, 409, 429) },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await services.checks.createCheck(request.access!, request.body)),
  });
  routes.get('/v1/checks', {
    config: read,
    schema: {
      tags,
      summary: 'Checks, oldest first, filtered by checkType and tag; X-Total-Count gives the total',
      querystring: listQuery,
      response: { 200: z.array(checkJson), ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request, reply) => {
      const { items, total } = await services.checks.listChecks(request.access!, request.query);
      void reply.header('x-total-count', String(total));
      return items;
    },
  });
  routes.get('/v1/checks/:id', {
    config: read,
    schema: {
      tags,
      summary: 'One check',
      params: idParams,
      response: { 200: checkJson, ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request) =>
      services.checks.present((await services.checks.getCheck(request.access!, request.params.id)).check),
  });
  routes.put('/v1/checks/:id', {
    config: dryWrite,
    schema: {
      tags,
      summary: 'Replace a check (its type cannot change)',
      params: idParams,
      body: checkInputSchema,
      response: { 200: checkJson, ...errorResponses(400, 401, 403, 404, 409, 429) },
    },
    handler: async (request) => services.checks.updateCheck(request.access!, request.params.id, request.body),
  });
  routes.delete('/v1/checks/:id', {
    config: dryWrite,
    schema: {
      tags,
      summary: 'Delete a check',
      params: idParams,
      response: { 204: z.null(), ...errorResponses(401, 403, 404, 409, 429) },
    },
    handler: async (request, reply) => {
      await services.checks.deleteCheck(request.access!, request.params.id);
      return reply.code(204).send(null);
    },
  });

  const groupTags = ['check groups'];
  routes.post('/v1/check-groups', {
    config: dryWrite,
    schema: {
      tags: groupTags,
      summary: 'Create a check group',
      body: checkGroupInputSchema,
      response: { 201: groupJson, ...errorResponses(400, 401, 403, 409, 429) },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await services.checks.createGroup(request.access!, request.body)),
  });
  routes.get('/v1/check-groups', {
    config: read,
    schema: {
      tags: groupTags,
      summary: 'Check groups, oldest first',
      querystring: pageQuerySchema,
      response: { 200: z.array(groupJson), ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request, reply) => {
      const { items, total } = await services.checks.listGroups(request.access!, request.query);
      void reply.header('x-total-count', String(total));
      return items;
    },
  });
  routes.get('/v1/check-groups/:id', {
    config: read,
    schema: {
      tags: groupTags,
      summary: 'One check group',
      params: idParams,
      response: { 200: groupJson, ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request) =>
      maskGroupVariables((await services.checks.getGroup(request.access!, request.params.id)).group, request.access!),
  });
  routes.put('/v1/check-groups/:id', {
    config: dryWrite,
    schema: {
      tags: groupTags,
      summary: 'Replace a check group',
      params: idParams,
      body: checkGroupInputSchema,
      response: { 200: groupJson, ...errorResponses(400, 401, 403, 404, 409, 429) },
    },
    handler: async (request) => services.checks.updateGroup(request.access!, request.params.id, request.body),
  });
  routes.delete('/v1/check-groups/:id', {
    config: dryWrite,
    schema: {
      tags: groupTags,
      summary: 'Delete a check group; 409 while it still has checks',
      params: idParams,
      response: { 204: z.null(), ...errorResponses(401, 403, 404, 409, 429) },
    },
    handler: async (request, reply) => {
      await services.checks.deleteGroup(request.access!, request.params.id);
      return reply.code(204).send(null);
    },
  });
}
