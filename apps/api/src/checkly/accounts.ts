import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '#core';
import { roleSchema, type Role } from '#domain';
import { zodRoutes } from '#http';
import type { AccountView, UserView } from '#readmodels';
import type { Principal } from '../access.ts';
import type { ApiServices } from '../services/index.ts';

/** Checkly's account as its CLI reads it: `name` and `id` (whoami, login, switch), a plan label. */
function accountJson(account: AccountView) {
  return {
    id: account.accountId,
    name: account.name,
    plan: account.plan,
    planDisplayName: account.plan.charAt(0).toUpperCase() + account.plan.slice(1),
    runtimeId: account.runtimeId,
    features: [] as string[],
    addons: {},
  };
}

function memberJson(user: UserView, accountId: string) {
  return {
    type: 'member' as const,
    userId: user.userId,
    email: user.email,
    // Vigil's users have no display name; the email is what names them everywhere else.
    name: user.email,
    role: user.memberships[accountId]! as Role,
    status: 'ACTIVE' as const,
    mfaEnabled: false,
    ssoEnabled: false,
    isSupportMembership: false,
  };
}

async function accessibleAccountIds(principal: Principal | null, services: ApiServices): Promise<string[]> {
  if (principal?.kind === 'service') return [principal.accountId];
  if (principal?.kind === 'user')
    return Object.keys((await services.readModels.user(principal.userId))?.memberships ?? {});
  return [];
}

const membersQuery = z.object({
  search: z.string().max(255).optional(),
  type: z.enum(['member', 'invite']).optional(),
  role: z.string().max(32).optional(),
  status: z.enum(['ACTIVE', 'PENDING', 'EXPIRED']).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
  nextId: z.string().max(64).optional(),
});
const userParams = z.object({ userId: z.string().max(64) });

/** Accounts, the calling user and the account's members, as `checkly whoami|switch|login|members` read them. */
export function accountRoutes(app: FastifyInstance, services: ApiServices): void {
  const routes = zodRoutes(app);

  routes.get('/next/accounts', {
    config: { access: { anyKey: true } },
    handler: async (request) => {
      const ids = await accessibleAccountIds(request.principal, services);
      return (await services.readModels.accounts(ids)).map(accountJson);
    },
  });

  routes.get('/next/accounts/:accountId', {
    config: { access: { anyKey: true } },
    schema: { params: z.object({ accountId: z.string().max(64) }) },
    handler: async (request) => {
      // Existence is private: an account this key cannot reach answers like an unknown one.
      const ids = await accessibleAccountIds(request.principal, services);
      const account = ids.includes(request.params.accountId)
        ? await services.readModels.account(request.params.accountId)
        : null;
      if (!account) throw new NotFoundError(`Account ${request.params.accountId} not found`);
      return accountJson(account);
    },
  });

  routes.get('/next/users/me', {
    config: { access: { anyKey: true } },
    handler: async (request) => {
      const principal = request.principal!;
      if (principal.kind === 'user') {
        const user = await services.readModels.user(principal.userId);
        if (!user) throw new NotFoundError('The user behind this key no longer exists');
        return { id: user.userId, name: user.email, email: user.email };
      }
      // A service key acts for its account, not for a person.
      const keyId = 'keyId' in principal ? principal.keyId : principal.kind;
      return { id: keyId, name: `service key ${keyId}`, email: null };
    },
  });

  routes.get('/v1/accounts/me/members', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: { querystring: membersQuery },
    handler: async (request) => {
      const { accountId } = request.access!;
      const { search, type, role, status, limit, nextId } = request.query;
      const needle = search?.trim().toLowerCase();
      // Vigil has no pending invites: a user added to an account is a member at once.
      const all =
        type === 'invite' || (status !== undefined && status !== 'ACTIVE')
          ? []
          : (await services.readModels.members(accountId))
              .map((user) => memberJson(user, accountId))
              .filter((member) => !role || member.role === role.toUpperCase())
              .filter((member) => !needle || member.email.toLowerCase().includes(needle))
              .sort((a, b) => a.email.localeCompare(b.email) || a.userId.localeCompare(b.userId));
      const start = nextId
        ? Math.max(
            0,
            all.findIndex((member) => member.userId === nextId),
          )
        : 0;
      const members = limit === undefined ? all.slice(start) : all.slice(start, start + limit);
      const next = limit === undefined ? undefined : all[start + limit];
      return { members, length: members.length, nextId: next?.userId ?? null };
    },
  });

  routes.patch('/v1/accounts/me/members/:userId', {
    config: { access: { minRole: 'ADMIN' } },
    schema: { params: userParams, body: z.object({ role: roleSchema }) },
    handler: async (request) => {
      const access = request.access!;
      await services.identity.changeRole(access, request.params.userId, request.body.role);
      const user = await services.readModels.user(request.params.userId);
      if (!user || !(access.accountId in user.memberships)) throw new NotFoundError('Member not found');
      return { ...memberJson(user, access.accountId), role: request.body.role };
    },
  });

  routes.delete('/v1/accounts/me/members/:userId', {
    config: { access: { minRole: 'ADMIN' } },
    schema: { params: userParams },
    handler: async (request, reply) => {
      await services.identity.removeUser(request.access!, request.params.userId);
      return reply.code(204).send();
    },
  });
}
