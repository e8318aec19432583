import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '#core';
import type { MaintenanceWindowInput } from '#domain';
import { zodRoutes } from '#http';
import type { Access } from '../access.ts';
import type { MaintenanceWindowJson, MaintenanceWindowService } from '../services/maintenance-windows.ts';
import { pageQuery, paginate } from './checks-read.ts';
import { findByNumericId, numericId, parseNumericId } from './ids.ts';

/** The SDK's MaintenanceWindow: repeat fields and tags left out when zero, timestamps sent back as read. */
export const windowBody = z.object({
  id: z.number().int().nullish(),
  name: z.string().max(2048),
  startsAt: z.string().max(64),
  endsAt: z.string().max(64),
  repeatInterval: z.number().int().nullish(),
  repeatUnit: z.string().max(16).nullish(),
  repeatEndsAt: z.string().max(64).nullish(),
  tags: z.array(z.string().max(64)).max(100).nullish(),
  created_at: z.string().max(64).nullish(),
  updated_at: z.string().max(64).nullish(),
});
type WindowBody = z.output<typeof windowBody>;

// The decider parses this with the domain's schema, so a bad repeatUnit is a 400 naming it there.
export const toVigil = (body: WindowBody): MaintenanceWindowInput =>
  ({
    name: body.name,
    startsAt: body.startsAt,
    endsAt: body.endsAt,
    tags: body.tags ?? [],
    repeatInterval: body.repeatInterval || null,
    repeatUnit: body.repeatUnit || null,
    repeatEndsAt: body.repeatEndsAt || null,
  }) as MaintenanceWindowInput;
const windowJson = (window: MaintenanceWindowJson) => ({ ...window, id: numericId(window.id) });

const read = { access: { minRole: 'READ_ONLY' as const } };
const write = { access: { minRole: 'READ_WRITE' as const } };
const params = z.object({ id: z.string().max(32) });
const EVERY = { limit: 100_000, page: 1 };

/** Maintenance windows under numeric ids, through Vigil's maintenance window service. */
export function maintenanceWindowRoutes(app: FastifyInstance, windows: MaintenanceWindowService): void {
  const routes = zodRoutes(app);
  const byNumber = async (access: Access, raw: string) => {
    const wanted = parseNumericId(raw, 'Maintenance window');
    const found = findByNumericId((await windows.list(access, EVERY)).items, (w) => w.id, wanted);
    if (!found) throw new NotFoundError(`Maintenance window ${raw} not found`);
    return found;
  };

  routes.get('/v1/maintenance-windows', {
    config: read,
    schema: { querystring: z.object(pageQuery) },
    handler: async (request, reply) => {
      const all = (await windows.list(request.access!, EVERY)).items;
      return paginate(reply, all, request.query.page, request.query.limit).map(windowJson);
    },
  });
  routes.get('/v1/maintenance-windows/:id', {
    config: read,
    schema: { params },
    handler: async (request) => windowJson(await byNumber(request.access!, request.params.id)),
  });
  routes.post('/v1/maintenance-windows', {
    config: write,
    schema: { body: windowBody },
    handler: async (request, reply) =>
      reply.code(201).send(windowJson(await windows.create(request.access!, toVigil(request.body)))),
  });
  routes.put('/v1/maintenance-windows/:id', {
    config: write,
    schema: { params, body: windowBody },
    handler: async (request) => {
      const existing = await byNumber(request.access!, request.params.id);
      // Vigil's own fields the SDK does not know (checkIds, pauseRuns) keep their values.
      const input = { ...toVigil(request.body), checkIds: existing.checkIds, pauseRuns: existing.pauseRuns };
      return windowJson(await windows.update(request.access!, existing.id, input));
    },
  });
  routes.delete('/v1/maintenance-windows/:id', {
    config: write,
    schema: { params },
    handler: async (request, reply) => {
      const existing = await byNumber(request.access!, request.params.id);
      await windows.delete(request.access!, existing.id);
      return reply.code(204).send();
    },
  });
}
