import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { PrivateLocationInput } from '#domain';
import { zodRoutes } from '#http';
import type { PrivateLocationService } from '../services/private-locations.ts';
import { pageQuery, paginate } from './checks-read.ts';

/**
 * The SDK's PrivateLocation as it marshals it: the read-only id, keys, lastSeen, agentCount and
 * timestamps come back on a PUT and are ignored; name, slugName and icon are the location.
 */
const locationBody = z.object({
  id: z.string().max(64).nullish(),
  name: z.string().max(2048),
  slugName: z.string().max(255),
  icon: z.string().max(255).nullish(),
  keys: z.array(z.unknown()).max(20).nullish(),
  lastSeen: z.string().max(64).nullish(),
  agentCount: z.number().int().nullish(),
  created_at: z.string().max(64).nullish(),
  updated_at: z.string().max(64).nullish(),
});
// The decider checks this with the domain's schema: a bad slugName is a 400 naming it.
const toVigil = (body: z.output<typeof locationBody>): PrivateLocationInput =>
  ({ name: body.name, slugName: body.slugName, icon: body.icon || null }) as PrivateLocationInput;

const read = { access: { minRole: 'READ_ONLY' as const } };
const write = { access: { minRole: 'READ_WRITE' as const } };
const params = z.object({ id: z.string().max(64) });

/** /v1/private-locations in Checkly's dialect, through Vigil's private location service (same roles). */
export function privateLocationRoutes(app: FastifyInstance, locations: PrivateLocationService): void {
  const routes = zodRoutes(app);
  routes.get('/v1/private-locations', {
    config: read,
    schema: { querystring: z.object(pageQuery) },
    handler: async (request, reply) => {
      const all = (await locations.list(request.access!, { page: 1, limit: 100_000 })).items;
      return paginate(reply, all, request.query.page, request.query.limit);
    },
  });
  routes.get('/v1/private-locations/:id', {
    config: read,
    schema: { params },
    handler: async (request) => locations.get(request.access!, request.params.id),
  });
  routes.post('/v1/private-locations', {
    config: write,
    schema: { body: locationBody },
    handler: async (request, reply) =>
      reply.code(201).send(await locations.create(request.access!, toVigil(request.body))),
  });
  routes.put('/v1/private-locations/:id', {
    config: write,
    schema: { params, body: locationBody },
    handler: async (request) => locations.update(request.access!, request.params.id, toVigil(request.body)),
  });
  routes.delete('/v1/private-locations/:id', {
    config: write,
    schema: { params },
    handler: async (request, reply) => {
      await locations.delete(request.access!, request.params.id);
      return reply.code(204).send();
    },
  });
  routes.post('/v1/private-locations/:id/keys', {
    config: { access: { minRole: 'ADMIN' } },
    schema: { params },
    handler: async (request, reply) => reply.code(201).send(await locations.addKey(request.access!, request.params.id)),
  });
  routes.delete('/v1/private-locations/:id/keys/:keyId', {
    config: { access: { minRole: 'ADMIN' } },
    schema: { params: z.object({ id: z.string().max(64), keyId: z.string().max(64) }) },
    handler: async (request, reply) => {
      await locations.revokeKey(request.access!, request.params.id, request.params.keyId);
      return reply.code(204).send();
    },
  });
}
