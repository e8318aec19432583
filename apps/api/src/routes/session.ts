import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { roles } from '#domain';
import { errorResponses, zodRoutes } from '#http';

const sessionSchema = z
  .object({
    accountId: z.string(),
    accountName: z.string(),
    role: z.enum(roles),
    keyType: z.enum(['user', 'service']),
    keyId: z.string(),
  })
  .meta({ id: 'Session' });

/** GET /v1/session: who this key is in the selected account, so a client can hide what its role cannot do. */
export function sessionRoutes(app: FastifyInstance): void {
  zodRoutes(app).get('/v1/session', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: {
      tags: ['accounts'],
      summary: 'The caller in this account: role and key (the console hides controls above the role)',
      response: { 200: sessionSchema, ...errorResponses(401, 403, 429) },
    },
    handler: async (request) => {
      const access = request.access!;
      const principal = access.principal;
      const keyId = principal.kind === 'user' || principal.kind === 'service' ? principal.keyId : principal.kind;
      return {
        accountId: access.accountId,
        accountName: access.account.name,
        role: access.role,
        keyType: principal.kind === 'service' ? ('service' as const) : ('user' as const),
        keyId,
      };
    },
  });
}
