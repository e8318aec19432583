import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { createVariableInputSchema, updateVariableInputSchema, variableKeySchema } from '#domain';
import { errorResponses, zodRoutes } from '#http';
import type { ApiServices } from '../services/index.ts';
import type { VariableJson } from '../services/variables.ts';
import { pageQuerySchema } from './schemas.ts';

const variableJsonSchema = z
  .object({
    key: z.string(),
    value: z.string().describe('"********" when locked (for non-admins) or secret'),
    locked: z.boolean(),
    secret: z.boolean(),
  })
  .meta({ id: 'EnvironmentVariable' });
const keyParams = z.object({ key: variableKeySchema });

/** fastify's own type for a serialized JSON body, so the answer's headers stay as they were. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The written body of each answer `held` gives: one frozen answer per cached variable document
 * and visible value, so a body lives exactly as long as the document it was written from.
 */
const heldBodies = new WeakMap<VariableJson, string>();

export function variableRoutes(app: FastifyInstance, services: ApiServices): void {
  const routes = zodRoutes(app);
  const tags = ['environment variables'];

  routes.post('/v1/variables', {
    config: { access: { minRole: 'READ_WRITE' }, dryRun: true },
    schema: {
      tags,
      summary: 'Create a variable',
      body: createVariableInputSchema,
      response: { 201: variableJsonSchema, ...errorResponses(400, 401, 403, 409, 429) },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await services.variables.create(request.access!, request.body)),
  });

  routes.get('/v1/variables', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: {
      tags,
      summary: 'Variables sorted by key; X-Total-Count gives the total',
      querystring: pageQuerySchema,
      response: { 200: z.array(variableJsonSchema), ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request, reply) => {
      const { items, total } = await services.variables.list(request.access!, request.query);
      void reply.header('x-total-count', String(total));
      return items;
    },
  });

  routes.get('/v1/variables/:key', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: {
      tags,
      summary: 'One variable; locked values are masked except for their creator and admins, secrets always',
      params: keyParams,
      response: { 200: variableJsonSchema, ...errorResponses(400, 401, 403, 404, 429) },
    },
    // Not async: a variable the read cache holds is sent with no promise; any other read awaits get.
    handler: (request, reply) => {
      const held = services.variables.held(request.access!, request.params.key);
      if (held === undefined) return services.variables.get(request.access!, request.params.key);
      let body = heldBodies.get(held);
      if (body === undefined) {
        // The route's own serializer writes it, so the bytes are the ones it would write each time.
        body = reply.serialize(held) as string;
        heldBodies.set(held, body);
      }
      // Sent as written: a string with a JSON type skips the serializer (reply is typed for the object).
      void (reply as FastifyReply).header('content-type', JSON_TYPE).send(body);
      return undefined;
    },
  });

  routes.put('/v1/variables/:key', {
    config: { access: { minRole: 'READ_WRITE' }, dryRun: true },
    schema: {
      tags,
      summary: 'Update a variable; a secret stays secret',
      params: keyParams,
      body: updateVariableInputSchema,
      response: { 200: variableJsonSchema, ...errorResponses(400, 401, 403, 404, 409, 429) },
    },
    handler: async (request) => services.variables.update(request.access!, request.params.key, request.body),
  });

  routes.delete('/v1/variables/:key', {
    config: { access: { minRole: 'READ_WRITE' }, dryRun: true },
    schema: {
      tags,
      summary: 'Delete a variable',
      params: keyParams,
      response: { 204: z.null(), ...errorResponses(400, 401, 403, 404, 409, 429) },
    },
    handler: async (request, reply) => {
      await services.variables.delete(request.access!, request.params.key);
      return reply.code(204).send(null);
    },
  });
}
