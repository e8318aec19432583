import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { maintenanceWindowInputSchema, maintenanceWindowSchema } from '#domain';
import { errorResponses, zodRoutes } from '#http';
import type { MaintenanceWindowService } from '../services/maintenance-windows.ts';
import { idParams, pageQuerySchema } from './schemas.ts';

const windowJson = maintenanceWindowSchema
  .extend({ activeNow: z.boolean().describe('Whether an occurrence of the window is in force at this moment') })
  .meta({ id: 'MaintenanceWindow' });

const about =
  'Checks with any of the tags, or named in checkIds, are covered. During an occurrence their scheduled runs are skipped (pauseRuns, the default) or run without alerting; manual triggers and test runs always run. All times are UTC. A monthly repeat on a day a month lacks falls on its last day.';

/** POST|GET|PUT|DELETE /v1/maintenance-windows, with Checkly's field names. */
export function maintenanceWindowRoutes(app: FastifyInstance, service: MaintenanceWindowService): void {
  const routes = zodRoutes(app);
  const tags = ['maintenance windows'];
  const read = { access: { minRole: 'READ_ONLY' as const } };
  const write = { access: { minRole: 'READ_WRITE' as const } };
  // Writes only through the command runner: ?dryRun=true runs them in full and appends nothing.
  const dryWrite = { ...write, dryRun: true };

  routes.post('/v1/maintenance-windows', {
    config: dryWrite,
    schema: {
      tags,
      summary: 'Create a maintenance window',
      description: about,
      body: maintenanceWindowInputSchema,
      response: { 201: windowJson, ...errorResponses(400, 401, 403, 404, 429) },
    },
    handler: async (request, reply) => reply.code(201).send(await service.create(request.access!, request.body)),
  });

  routes.get('/v1/maintenance-windows', {
    config: read,
    schema: {
      tags,
      summary: 'Maintenance windows of the account, oldest first; X-Total-Count gives the total',
      querystring: pageQuerySchema,
      response: { 200: z.array(windowJson), ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request, reply) => {
      const { items, total } = await service.list(request.access!, request.query);
      void reply.header('x-total-count', String(total));
      return items;
    },
  });

  routes.get('/v1/maintenance-windows/:id', {
    config: read,
    schema: {
      tags,
      summary: 'One maintenance window',
      params: idParams,
      response: { 200: windowJson, ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request) => service.get(request.access!, request.params.id),
  });

  routes.put('/v1/maintenance-windows/:id', {
    config: dryWrite,
    schema: {
      tags,
      summary: 'Replace a maintenance window; an edit takes effect at once, also while it is in force',
      params: idParams,
      body: maintenanceWindowInputSchema,
      response: { 200: windowJson, ...errorResponses(400, 401, 403, 404, 429) },
    },
    handler: async (request) => service.update(request.access!, request.params.id, request.body),
  });

  routes.delete('/v1/maintenance-windows/:id', {
    config: dryWrite,
    schema: {
      tags,
      summary: 'Delete a maintenance window; covered checks run and alert as usual from then on',
      params: idParams,
      response: { 204: z.null(), ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request, reply) => {
      await service.delete(request.access!, request.params.id);
      return reply.code(204).send(null);
    },
  });
}
