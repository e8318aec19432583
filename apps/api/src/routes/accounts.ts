import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '#core';
import {
  accountDecider,
  accountUpdateInputSchema,
  emailSchema,
  planSchema,
  streamNames,
  type AccountCommand,
} from '#domain';
import { errorResponses, zodRoutes } from '#http';
import type { AccountView } from '#readmodels';
import type { Principal } from '../access.ts';
import type { ApiServices } from '../services/index.ts';
import { accountJson, accountJsonSchema } from './schemas.ts';

const createAccountBody = z.object({
  name: z.string().trim().min(1).max(255),
  plan: planSchema,
  ownerEmail: emailSchema,
  runtimeId: z.string().optional(),
});

import { issuedKeyJsonSchema as issuedKeySchema } from './api-keys.ts';

/** fastify's own type for a serialized JSON body, so the answer's headers stay as they were. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * GET /v1/accounts/me's body per account document. The read cache hands out one document per
 * account until a change, a drop or the TTL replaces it, so the body lives exactly as long as the
 * document it was written from (documents are never changed in place); a document read uncached
 * is a new object each time and is simply written again.
 */
const accountBodies = new WeakMap<AccountView, string>();

export function accountRoutes(app: FastifyInstance, services: ApiServices): void {
  const routes = zodRoutes(app);
  const tags = ['accounts'];

  routes.post('/v1/accounts', {
    config: { access: { platform: 'admin' } },
    schema: {
      tags,
      summary: "Create an account with its owner and the owner's first API key (platform admin key)",
      body: createAccountBody,
      response: {
        201: z.object({
          account: accountJsonSchema,
          owner: z.object({ id: z.string(), email: z.string() }),
          apiKey: issuedKeySchema,
        }),
        ...errorResponses(400, 401, 403, 409, 429),
      },
    },
    handler: async (request, reply) => {
      const created = await services.identity.createAccount(request.body);
      if (created.account.status !== 'active') throw new Error('account was not created');
      return reply
        .code(201)
        .send({ account: accountJson(created.account), owner: created.owner, apiKey: created.apiKey });
    },
  });

  routes.get('/v1/accounts', {
    config: { access: { anyKey: true } },
    schema: {
      tags,
      summary: 'Accounts this key can access',
      response: { 200: z.array(accountJsonSchema), ...errorResponses(401, 403, 429) },
    },
    handler: async (request) => {
      const ids = await accessibleAccountIds(request.principal, services);
      return (await services.readModels.accounts(ids)).map(accountJson);
    },
  });

  routes.get('/v1/accounts/me', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: {
      tags,
      summary: 'The account named by X-Service-Account, or by the service key',
      response: { 200: accountJsonSchema, ...errorResponses(400, 401, 403, 429) },
    },
    // Not async: the auth hook has read the account, so there is nothing to wait for (and no promise to make).
    handler: (request, reply) => {
      const account = request.access!.account;
      let body = accountBodies.get(account);
      if (body === undefined) {
        // The route's own serializer writes it, so the bytes are the ones it would write each time.
        body = reply.serialize(accountJson(account)) as string;
        accountBodies.set(account, body);
      }
      // Sent as written: a string with a JSON type skips the serializer (reply is typed for the object).
      void (reply as FastifyReply).header('content-type', JSON_TYPE).send(body);
    },
  });

  routes.patch('/v1/accounts/me', {
    config: { access: { minRole: 'ADMIN' }, dryRun: true },
    schema: {
      tags,
      summary: 'Update the current account (ADMIN or above)',
      body: accountUpdateInputSchema,
      response: { 200: accountJsonSchema, ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request) => {
      const access = request.access!;
      if (request.body.runtimeId) services.runtimes.assertUsable(request.body.runtimeId);
      const outcome = await services.commands.run(
        accountDecider,
        streamNames.account(access.accountId),
        (): AccountCommand => ({
          type: 'UpdateAccount',
          accountId: access.accountId,
          ...request.body,
          now: services.commands.now(),
          actor: access.actor,
        }),
        { accountId: access.accountId, actor: access.actor },
      );
      if (outcome.state.status !== 'active') throw new NotFoundError('Account not found');
      return accountJson(outcome.state);
    },
  });

  routes.get('/v1/accounts/:accountId', {
    config: { access: { anyKey: true } },
    schema: {
      tags,
      summary: 'One account this key can access',
      params: z.object({ accountId: z.string() }),
      response: { 200: accountJsonSchema, ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request) => {
      // Existence is private: an account this key cannot access answers exactly like an unknown one.
      const ids = await accessibleAccountIds(request.principal, services);
      const account = ids.includes(request.params.accountId)
        ? await services.readModels.account(request.params.accountId)
        : null;
      if (!account) throw new NotFoundError(`Account ${request.params.accountId} not found`);
      return accountJson(account);
    },
  });
}

async function accessibleAccountIds(principal: Principal | null, services: ApiServices): Promise<string[]> {
  if (principal?.kind === 'service') return [principal.accountId];
  if (principal?.kind === 'user')
    return Object.keys((await services.readModels.user(principal.userId))?.memberships ?? {});
  return [];
}
