import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { CheckTrigger } from '#domain';
import { errorResponses, zodRoutes } from '#http';
import type { CheckTriggerService } from '../services/check-triggers.ts';
import { idParams } from './schemas.ts';

export const checkTriggerJson = z
  .object({
    id: z.string(),
    checkId: z.string(),
    token: z.string().describe('The credential of the trigger URL; anyone holding the URL can start runs'),
    url: z.string().describe('GET or POST it to run the check, with no API key'),
    called: z.number().int().describe('How many times the URL started a run'),
    calledAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'CheckTrigger' });

const callResult = z
  .object({
    checkId: z.string(),
    hasFailures: z.boolean().describe('True when a run from any location failed'),
    results: z.array(
      z.object({
        resultId: z.string(),
        runLocation: z.string(),
        hasFailures: z.boolean(),
        responseTime: z.number(),
      }),
    ),
  })
  .meta({ id: 'CheckTriggerCall' });

/** Public on purpose: a token longer than any minted one is just a wrong one (404), not bad input. */
export const triggerCallParams = z.object({ id: z.string().max(64), token: z.string().min(1).max(256) });

/** The public URL of a trigger: Vigil's own form, under the API's public address. */
export function triggerUrl(publicUrl: string, checkId: string, token: string): string {
  return `${publicUrl.replace(/\/$/, '')}/v1/checks/${checkId}/trigger/${token}`;
}

/**
 * Check triggers: one secret URL per check that runs it, for CI pipelines and deploy hooks
 * (Checkly's trigger URLs). Managing one takes the check's write role; the URL takes no key.
 */
export function checkTriggerRoutes(
  app: FastifyInstance,
  deps: { triggers: CheckTriggerService; publicUrl: string },
): void {
  const routes = zodRoutes(app);
  const tags = ['checks'];
  const show = (checkId: string, trigger: CheckTrigger) => ({
    id: trigger.id,
    checkId,
    token: trigger.token,
    url: triggerUrl(deps.publicUrl, checkId, trigger.token),
    called: trigger.called,
    calledAt: trigger.calledAt,
    createdAt: trigger.createdAt,
    updatedAt: trigger.updatedAt,
  });

  routes.post('/v1/triggers/checks/:id', {
    config: { access: { minRole: 'READ_WRITE' } },
    schema: {
      tags,
      summary: "Create the check's trigger URL (201), or answer the one it has (200)",
      description:
        'A check has at most one trigger. Its URL runs the check with no API key, so treat it as a secret; delete the trigger to revoke it, and create a new one for a new URL.',
      params: idParams,
      response: { 200: checkTriggerJson, 201: checkTriggerJson, ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request, reply) => {
      const { trigger, created } = await deps.triggers.create(request.access!, request.params.id);
      return reply.code(created ? 201 : 200).send(show(request.params.id, trigger));
    },
  });

  routes.get('/v1/triggers/checks/:id', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: {
      tags,
      summary: "The check's trigger URL and how often it was called; 404 when it has none",
      params: idParams,
      response: { 200: checkTriggerJson, ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request) => show(request.params.id, await deps.triggers.get(request.access!, request.params.id)),
  });

  routes.delete('/v1/triggers/checks/:id', {
    config: { access: { minRole: 'READ_WRITE' } },
    schema: {
      tags,
      summary: "Delete the check's trigger: its URL answers 404 at once",
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
      url: '/v1/checks/:id/trigger/:token',
      // No HEAD: a link preview or checker probing the URL must not start runs.
      exposeHeadRoute: false,
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Run a check through its trigger URL (no API key: the token is the credential)',
        description:
          'Runs the check as POST /v1/checks/{id}/trigger does and waits for the runs; answers only whether they passed. A wrong token, a deleted trigger and an unknown check all answer 404. Each trigger takes VIGIL_TRIGGER_RATE_PER_MINUTE calls a minute (429 with Retry-After beyond).',
        params: triggerCallParams,
        response: { 200: callResult, ...errorResponses(400, 404, 429) },
      },
      handler: async (request) => deps.triggers.call(request.params.id, request.params.token),
    });
  }
}
