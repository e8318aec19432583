import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { emailSchema, roleSchema } from '#domain';
import { errorResponses, zodRoutes } from '#http';
import type { ApiServices } from '../services/index.ts';
import { issuedKeyJsonSchema } from './api-keys.ts';
import { idParams } from './schemas.ts';

const userJsonSchema = z.object({ id: z.string(), email: z.string(), role: roleSchema }).meta({ id: 'User' });

export function userRoutes(app: FastifyInstance, services: ApiServices): void {
  const routes = zodRoutes(app);
  const tags = ['users'];

  routes.post('/v1/users', {
    config: { access: { minRole: 'ADMIN' } },
    schema: {
      tags,
      summary: 'Add a user to this account; a new user also gets a first API key, shown once (ADMIN or above)',
      body: z.object({ email: emailSchema, role: roleSchema }),
      response: {
        201: z.object({ user: userJsonSchema, apiKey: issuedKeyJsonSchema.nullable() }),
        ...errorResponses(400, 401, 403, 409, 429),
      },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await services.identity.inviteUser(request.access!, request.body.email, request.body.role)),
  });

  routes.get('/v1/users', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: {
      tags,
      summary: 'Members of this account',
      response: { 200: z.array(userJsonSchema), ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request) => {
      const accountId = request.access!.accountId;
      const members = await services.readModels.members(accountId);
      return members
        .map((user) => ({ id: user.userId, email: user.email, role: user.memberships[accountId]! }))
        .sort((a, b) => a.email.localeCompare(b.email));
    },
  });

  routes.patch('/v1/users/:id', {
    config: { access: { minRole: 'ADMIN' }, dryRun: true },
    schema: {
      tags,
      summary: "Change a member's role; nobody grants a role above their own (ADMIN or above)",
      params: idParams,
      body: z.object({ role: roleSchema }),
      response: { 200: userJsonSchema, ...errorResponses(400, 401, 403, 404, 409, 429) },
    },
    handler: async (request) => services.identity.changeRole(request.access!, request.params.id, request.body.role),
  });

  routes.delete('/v1/users/:id', {
    config: { access: { minRole: 'ADMIN' }, dryRun: true },
    schema: {
      tags,
      summary: 'Remove a user from this account; their keys lose access at once (ADMIN or above)',
      params: idParams,
      response: { 204: z.null(), ...errorResponses(400, 401, 403, 404, 409, 429) },
    },
    handler: async (request, reply) => {
      await services.identity.removeUser(request.access!, request.params.id);
      return reply.code(204).send(null);
    },
  });
}
