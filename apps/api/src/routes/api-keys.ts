import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { roleSchema } from '#domain';
import { errorResponses, zodRoutes } from '#http';
import type { ApiServices } from '../services/index.ts';
import { idParams } from './schemas.ts';

export const issuedKeyJsonSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(['user', 'service']),
    role: roleSchema.nullable(),
    key: z.string().describe('The key itself, shown this once'),
  })
  .meta({ id: 'IssuedApiKey' });

const keyJsonSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    type: z.enum(['user', 'service']),
    role: roleSchema.nullable(),
    last4: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: 'ApiKey' });

export function apiKeyRoutes(app: FastifyInstance, services: ApiServices): void {
  const routes = zodRoutes(app);
  const tags = ['api-keys'];

  routes.post('/v1/api-keys', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: {
      tags,
      summary: 'Create a user key for yourself, or a service key for this account (ADMIN or above, enterprise plan)',
      // A user key carries its user's roles, so only a service key names one.
      body: z.discriminatedUnion('type', [
        z.object({ name: z.string().trim().min(1).max(255), type: z.literal('user') }).strict(),
        z.object({ name: z.string().trim().min(1).max(255), type: z.literal('service'), role: roleSchema }),
      ]),
      response: { 201: issuedKeyJsonSchema, ...errorResponses(400, 401, 402, 403, 409, 429) },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await services.identity.createKey(request.access!, request.body)),
  });

  routes.get('/v1/api-keys', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: {
      tags,
      summary: "Your user keys and, for admins, this account's service keys; never the secrets",
      response: { 200: z.array(keyJsonSchema), ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request) =>
      (await services.identity.listKeys(request.access!)).map((key) => ({
        id: key.keyId,
        name: key.name,
        type: key.type,
        role: key.role,
        last4: key.last4,
        createdAt: key.createdAt,
      })),
  });

  routes.delete('/v1/api-keys/:id', {
    config: { access: { minRole: 'READ_ONLY' }, dryRun: true },
    schema: {
      tags,
      summary: 'Delete a key: your own user key, or a service key (ADMIN or above)',
      params: idParams,
      response: { 204: z.null(), ...errorResponses(400, 401, 403, 404, 429) },
    },
    handler: async (request, reply) => {
      await services.identity.revokeKey(request.access!, request.params.id);
      return reply.code(204).send(null);
    },
  });
}
