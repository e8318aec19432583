import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { GroupTrigger } from '#domain';
import { errorResponses, zodRoutes } from '#http';
import type { GroupTriggerService } from '../services/group-triggers.ts';
import { triggerCallParams } from './check-triggers.ts';
import { idParams } from './schemas.ts';

export const groupTriggerJson = z
  .object({
    id: z.string(),
    groupId: z.string(),
    token: z.string().describe('The credential of the trigger URL; anyone holding the URL can start runs'),
    url: z.string().describe("GET or POST it to run the group's checks, with no API key"),
    called: z.number().int().describe('How many times the URL was called'),
    calledAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'GroupTrigger' });

const callResult = z
  .object({
    groupId: z.string(),
    hasFailures: z.boolean().describe('True when any run of any check failed'),
    results: z.array(
      z.object({
        checkId: z.string(),
        resultId: z.string(),
        runLocation: z.string(),
        hasFailures: z.boolean(),
        responseTime: z.number(),
      }),
    ),
  })
  .meta({ id: 'GroupTriggerCall' });

/** The public URL of a group trigger: Vigil's own form, under the API's public address. */
export function groupTriggerUrl(publicUrl: string, groupId: string, token: string): string {
  return `${publicUrl.replace(/\/$/, '')}/v1/check-groups/${groupId}/trigger/${token}`;
}

/**
 * Group triggers: one secret URL per check group that runs its activated checks, for CI pipelines
 * and deploy hooks (Checkly's group trigger URLs). Managing one takes the write role; the URL takes no key.
 */
export function groupTriggerRoutes(
  app: FastifyInstance,
  deps: { triggers: GroupTriggerService; publicUrl: string },
): void {
  const routes = zodRoutes(app);
  const tags = ['check groups'];
  const show = (groupId: string, trigger: GroupTrigger) => ({
    id: trigger.id,
    groupId,
    token: trigger.token,
    url: groupTriggerUrl(deps.publicUrl, groupId, trigger.token),
    called: trigger.called,
    calledAt: trigger.calledAt,
    createdAt: trigger.createdAt,
    updatedAt: trigger.updatedAt,
  });

  routes.post('/v1/triggers/check-groups/:id', {
    config: { access: { minRole: 'READ_WRITE' } },
    schema: {
      tags,
      summary: "Create the group's trigger URL (201), or answer the one it has (200)",
      description:
        "A group has at most one trigger. Its URL runs the group's activated checks with no API key, so treat it as a secret; delete the trigger to revoke it, and create a new one for a new URL.",
      params: idParams,
      response: { 200: groupTriggerJson, 201: groupTriggerJson, ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request, reply) => {
      const { trigger, created } = await deps.triggers.create(request.access!, request.params.id);
      return reply.code(created ? 201 : 200).send(show(request.params.id, trigger));
    },
  });

  routes.get('/v1/triggers/check-groups/:id', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: {
      tags,
      summary: "The group's trigger URL and how often it was called; 404 when it has none",
      params: idParams,
      response: { 200: groupTriggerJson, ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request) => show(request.params.id, await deps.triggers.get(request.access!, request.params.id)),
  });

  routes.delete('/v1/triggers/check-groups/:id', {
    config: { access: { minRole: 'READ_WRITE' } },
    schema: {
      tags,
      summary: "Delete the group's trigger: its URL answers 404 at once",
      params: idParams,
      response: { 204: z.null(), ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request, reply) => {
      await deps.triggers.delete(request.access!, request.params.id);
      return reply.code(204).send(null);
    },
  });

  for (const method of ['GET', 'POST'] as const) {
    routes.route({
      method,
      url: '/v1/check-groups/:id/trigger/:token',
      // No HEAD: a link preview or checker probing the URL must not start runs.
      exposeHeadRoute: false,
      config: { access: 'public' },
      schema: {
        tags,
        summary: "Run a group's checks through its trigger URL (no API key: the token is the credential)",
        description:
          'Runs each activated check of the group (heartbeat checks and checks that run only at private locations left out) as POST /v1/checks/{id}/trigger does, and waits for the runs; answers only whether they passed. A wrong token, a deleted trigger and an unknown group all answer 404. Each trigger takes VIGIL_TRIGGER_RATE_PER_MINUTE calls a minute (429 with Retry-After beyond).',
        params: triggerCallParams,
        response: { 200: callResult, ...errorResponses(400, 404, 429) },
      },
      handler: async (request) => deps.triggers.call(request.params.id, request.params.token),
    });
  }
}
