import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { roleSchema } from '#domain';
import { errorResponses, zodRoutes } from '#http';
import type { ApiServices } from '../services/index.ts';

const whoamiSchema = z
  .object({
    accountId: z.string(),
    keyType: z.enum(['user', 'service']),
    keyId: z.string(),
    role: roleSchema.describe('The role this key acts with in the account'),
    user: z.object({ id: z.string(), email: z.string() }).nullable().describe('null for a service key'),
  })
  .meta({ id: 'Whoami' });

/** GET /v1/whoami: who the key acts as in the selected account; what `vigil whoami` shows. */
export function whoamiRoutes(app: FastifyInstance, services: ApiServices): void {
  zodRoutes(app).get('/v1/whoami', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: {
      tags: ['accounts'],
      summary: 'The key in use: its user (email) or service key, and its role in the account',
      response: { 200: whoamiSchema, ...errorResponses(401, 403, 429) },
    },
    handler: async (request) => {
      const access = request.access!;
      const principal = access.principal as { kind: 'user' | 'service'; keyId: string };
      const user = access.userId ? await services.readModels.user(access.userId) : null;
      return {
        accountId: access.accountId,
        keyType: principal.kind,
        keyId: principal.keyId,
        role: access.role,
        user: user && access.userId ? { id: access.userId, email: user.email } : null,
      };
    },
  });
}
