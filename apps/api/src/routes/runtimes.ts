import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '#core';
import { errorResponses, zodRoutes } from '#http';
import { runtimeSchema } from '../runtimes/catalogue.ts';
import type { ApiServices } from '../services/index.ts';

export function runtimeRoutes(app: FastifyInstance, services: ApiServices): void {
  const routes = zodRoutes(app);
  const tags = ['runtimes'];

  routes.get('/v1/runtimes', {
    config: { access: { anyKey: true } },
    schema: {
      tags,
      summary: 'Every runtime, newest first',
      response: { 200: z.array(runtimeSchema), ...errorResponses(401, 403, 429) },
    },
    handler: async () => services.runtimes.runtimes,
  });

  routes.get('/v1/runtimes/:name', {
    config: { access: { anyKey: true } },
    schema: {
      tags,
      summary: 'One runtime by name (YYYY.MM)',
      params: z.object({ name: z.string() }),
      response: { 200: runtimeSchema, ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request) => {
      const runtime = services.runtimes.get(request.params.name);
      if (!runtime) throw new NotFoundError(`Runtime ${request.params.name} not found`);
      return runtime;
    },
  });
}
