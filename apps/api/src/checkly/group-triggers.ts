import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { GroupTrigger } from '#domain';
import { zodRoutes } from '#http';
import type { Access } from '../access.ts';
import { triggerCallParams } from '../routes/check-triggers.ts';
import type { ApiServices } from '../services/index.ts';
import type { GroupTriggerService } from '../services/group-triggers.ts';
import { numericId } from './ids.ts';
import { groupByNumericId } from './resources-read.ts';

/**
 * Checkly's group triggers, as the Go SDK's CreateTriggerGroup, GetTriggerGroup and
 * DeleteTriggerGroup send and read them: `{id, groupId, token, called_at, created_at, updated_at}`
 * (snake case, as Checkly answers), ids integers. The SDK builds the URL itself as
 * `<api_url>/check-groups/{groupId}/trigger/{token}`: it names no account, and numeric ids are
 * only unique per account, so the token's digest finds the group (a read-model index rebuilt from
 * the events), which must then carry the numeric id the URL names. Answers as the check trigger
 * URL does: 200 when every run passed, 503 when one failed, `{hasFailures, responseTime}`.
 */
export function groupTriggerRoutes(
  app: FastifyInstance,
  deps: { services: ApiServices; triggers: GroupTriggerService },
): void {
  const routes = zodRoutes(app);
  const params = z.object({ id: z.string().max(32) });
  const show = (groupId: string, trigger: GroupTrigger) => ({
    id: numericId(trigger.id),
    groupId: numericId(groupId),
    token: trigger.token,
    called: trigger.called,
    called_at: trigger.calledAt,
    created_at: trigger.createdAt,
    updated_at: trigger.updatedAt,
  });
  const groupOf = async (access: Access, raw: string) => (await groupByNumericId(deps, access, raw)).group.id;

  routes.post('/v1/triggers/check-groups/:id', {
    config: { access: { minRole: 'READ_WRITE' } },
    schema: { params },
    handler: async (request, reply) => {
      const groupId = await groupOf(request.access!, request.params.id);
      const { trigger, created } = await deps.triggers.create(request.access!, groupId);
      return reply.code(created ? 201 : 200).send(show(groupId, trigger));
    },
  });
  routes.get('/v1/triggers/check-groups/:id', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: { params },
    handler: async (request) => {
      const groupId = await groupOf(request.access!, request.params.id);
      return show(groupId, await deps.triggers.get(request.access!, groupId));
    },
  });
  routes.delete('/v1/triggers/check-groups/:id', {
    config: { access: { minRole: 'READ_WRITE' } },
    schema: { params },
    handler: async (request, reply) => {
      const groupId = await groupOf(request.access!, request.params.id);
      await deps.triggers.delete(request.access!, groupId);
      return reply.code(204).send(null);
    },
  });

  for (const method of ['GET', 'POST'] as const) {
    routes.route({
      method,
      url: '/check-groups/:id/trigger/:token',
      // No HEAD: a link preview or checker probing the URL must not start runs.
      exposeHeadRoute: false,
      config: { access: 'public' },
      schema: { params: triggerCallParams, querystring: z.looseObject({}) },
      handler: async (request, reply) => {
        const { id, token } = request.params;
        const outcome = await deps.triggers.callByToken(token, (groupId) => String(numericId(groupId)) === id);
        const responseTime = Math.round(Math.max(0, ...outcome.results.map((result) => result.responseTime)));
        return reply.code(outcome.hasFailures ? 503 : 200).send({ hasFailures: outcome.hasFailures, responseTime });
      },
    });
  }
}
