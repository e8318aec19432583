import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { privateLocationInputSchema, slugNameSchema } from '#domain';
import { errorResponses, zodRoutes } from '#http';
import type { PrivateLocationService } from '../services/private-locations.ts';
import { idParams, pageQuerySchema } from './schemas.ts';

const keyJson = z
  .object({
    id: z.uuid(),
    maskedKey: z.string().describe('The key with all but its last four characters hidden'),
    createdAt: z.string(),
  })
  .meta({ id: 'PrivateLocationKey' });

const mintedKeyJson = keyJson
  .extend({ rawKey: z.string().describe('The key itself (pl_…); shown this once, only its hash is kept') })
  .meta({ id: 'PrivateLocationNewKey' });

const agentJson = z
  .object({
    id: z.string().describe('Drawn by the agent process at start; a restarted agent is a new one'),
    version: z.string(),
    lastSeen: z.string(),
    inFlight: z.int().describe('Runs the agent held when it last polled'),
  })
  .meta({ id: 'PrivateLocationAgent' });

const locationJson = z
  .object({
    id: z.uuid(),
    name: z.string(),
    slugName: slugNameSchema.describe("What checks list in 'locations'"),
    icon: z.string().nullable(),
    keys: z.array(keyJson),
    agents: z.array(agentJson).describe('Agents seen polling in the last 24 hours, most recent first'),
    agentCount: z.int().describe('Agents seen within the availability window'),
    lastSeen: z.string().nullable(),
    status: z
      .enum(['AVAILABLE', 'UNAVAILABLE'])
      .describe('AVAILABLE while an agent polled within the last 10 minutes (VIGIL_PRIVATE_LOCATION_UNAVAILABLE_MS)'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'PrivateLocation' });

const keyParams = z.object({ id: z.string().max(64), keyId: z.string().max(64) });

const about =
  "A private location is a network of yours (a VPC, an office) where agents run your checks: a check lists the location's slugName in locations, and only the location's agents run it there, never Vigil's runners. An agent needs one of the location's keys and outbound HTTPS to this API.";

/** POST|GET|PUT|DELETE /v1/private-locations and their keys, with Checkly's field names. */
export function privateLocationRoutes(app: FastifyInstance, service: PrivateLocationService): void {
  const routes = zodRoutes(app);
  const tags = ['private locations'];
  const read = { access: { minRole: 'READ_ONLY' as const } };
  const write = { access: { minRole: 'READ_WRITE' as const } };
  // A key opens the checks' decrypted variables to whoever holds it: credentials need an admin, as service keys do.
  const admin = { access: { minRole: 'ADMIN' as const } };

  routes.post('/v1/private-locations', {
    config: write,
    schema: {
      tags,
      summary: 'Create a private location',
      description: about,
      body: privateLocationInputSchema,
      response: { 201: locationJson, ...errorResponses(400, 401, 403, 409, 429) },
    },
    handler: async (request, reply) => reply.code(201).send(await service.create(request.access!, request.body)),
  });

  routes.get('/v1/private-locations', {
    config: read,
    schema: {
      tags,
      summary: 'Private locations of the account, oldest first; X-Total-Count gives the total',
      querystring: pageQuerySchema,
      response: { 200: z.array(locationJson), ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request, reply) => {
      const { items, total } = await service.list(request.access!, request.query);
      void reply.header('x-total-count', String(total));
      return items;
    },
  });

  routes.get('/v1/private-locations/:id', {
    config: read,
    schema: {
      tags,
      summary: 'One private location, with its agents and status',
      params: idParams,
      response: { 200: locationJson, ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request) => service.get(request.access!, request.params.id),
  });

  routes.put('/v1/private-locations/:id', {
    config: write,
    schema: {
      tags,
      summary: 'Replace a private location; its slugName may change only while no check lists it',
      params: idParams,
      body: privateLocationInputSchema,
      response: { 200: locationJson, ...errorResponses(400, 401, 403, 404, 409, 429) },
    },
    handler: async (request) => service.update(request.access!, request.params.id, request.body),
  });

  routes.delete('/v1/private-locations/:id', {
    config: write,
    schema: {
      tags,
      summary: 'Delete a private location: its keys stop working and its checks are no longer scheduled there',
      params: idParams,
      response: { 204: z.null(), ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request, reply) => {
      await service.delete(request.access!, request.params.id);
      return reply.code(204).send(null);
    },
  });

  routes.post('/v1/private-locations/:id/keys', {
    config: admin,
    schema: {
      tags,
      summary: 'Mint a key for the location’s agents (pl_…); shown once, several may live at once for rotation',
      params: idParams,
      response: { 201: mintedKeyJson, ...errorResponses(400, 401, 403, 404, 429) },
    },
    handler: async (request, reply) => reply.code(201).send(await service.addKey(request.access!, request.params.id)),
  });

  routes.delete('/v1/private-locations/:id/keys/:keyId', {
    config: admin,
    schema: {
      tags,
      summary: 'Revoke a key; an agent using it stops at its next poll',
      params: keyParams,
      response: { 204: z.null(), ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request, reply) => {
      await service.revokeKey(request.access!, request.params.id, request.params.keyId);
      return reply.code(204).send(null);
    },
  });
}
