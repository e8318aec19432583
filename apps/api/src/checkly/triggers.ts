import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { CheckTrigger } from '#domain';
import { zodRoutes } from '#http';
import { triggerCallParams } from '../routes/check-triggers.ts';
import { idParams } from '../routes/schemas.ts';
import type { CheckTriggerService } from '../services/check-triggers.ts';
import { numericId } from './ids.ts';

/**
 * Checkly's check triggers, as the Go SDK's CreateTriggerCheck, GetTriggerCheck and
 * DeleteTriggerCheck send and read them: `{id, checkId, token, called_at, created_at, updated_at}`
 * (snake case, as Checkly answers), the id an integer. The SDK builds the URL itself as
 * `<api_url>/checks/{checkId}/trigger/{token}`, which is served here too, answering as Checkly
 * does: 200 when every run passed, 503 when one failed, `{hasFailures, responseTime}`.
 */
export function triggerRoutes(app: FastifyInstance, triggers: CheckTriggerService): void {
  const routes = zodRoutes(app);
  const show = (checkId: string, trigger: CheckTrigger) => ({
    id: numericId(trigger.id),
    checkId,
    token: trigger.token,
    called: trigger.called,
    called_at: trigger.calledAt,
    created_at: trigger.createdAt,
    updated_at: trigger.updatedAt,
  });

  routes.post('/v1/triggers/checks/:id', {
    config: { access: { minRole: 'READ_WRITE' } },
    schema: { params: idParams },
    handler: async (request, reply) => {
      const { trigger, created } = await triggers.create(request.access!, request.params.id);
      return reply.code(created ? 201 : 200).send(show(request.params.id, trigger));
    },
  });
  routes.get('/v1/triggers/checks/:id', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: { params: idParams },
    handler: async (request) => show(request.params.id, await triggers.get(request.access!, request.params.id)),
  });
  routes.delete('/v1/triggers/checks/:id', {
    config: { access: { minRole: 'READ_WRITE' } },
    schema: { params: idParams },
    handler: async (request, reply) => {
      await triggers.delete(request.access!, request.params.id);
      return reply.code(204).send(null);
    },
  });

  for (const method of ['GET', 'POST'] as const) {
    routes.route({
      method,
      url: '/checks/:id/trigger/:token',
      // No HEAD: a link preview or checker probing the URL must not start runs.
      exposeHeadRoute: false,
      config: { access: 'public' },
      schema: { params: triggerCallParams, querystring: z.looseObject({}) },
      handler: async (request, reply) => {
        const outcome = await triggers.call(request.params.id, request.params.token);
        const responseTime = Math.round(Math.max(0, ...outcome.results.map((result) => result.responseTime)));
        return reply.code(outcome.hasFailures ? 503 : 200).send({ hasFailures: outcome.hasFailures, responseTime });
      },
    });
  }
}
