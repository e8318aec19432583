import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '#core';
import { errorResponses, zodRoutes } from '#http';
import { runtimeSchema, type Runtime } from '../runtimes/catalogue.ts';
import type { ApiServices } from '../services/index.ts';

const runtimeJsonSchema = runtimeSchema
  .extend({
    installed: z
      .boolean()
      .describe(
        'Whether the runtime is installed in this deployment (the API host’s install root, VIGIL_RUNTIMES_DIR). ' +
          'Runners install every runtime that is not REMOVED when they start, and report their own installs on /ready.',
      ),
  })
  .meta({ id: 'Runtime' });

export function runtimeRoutes(app: FastifyInstance, services: ApiServices): void {
  const routes = zodRoutes(app);
  const tags = ['runtimes'];
  const { installations } = services.runtimes;
  const present = async (runtime: Runtime) => ({
    ...runtime,
    installed: runtime.stage !== 'REMOVED' && (await installations.isInstalled(runtime.name)),
  });

  routes.get('/v1/runtimes', {
    config: { access: { anyKey: true } },
    schema: {
      tags,
      summary: 'Every runtime, newest first, with its stage today and whether it is installed',
      response: { 200: z.array(runtimeJsonSchema), ...errorResponses(401, 403, 429) },
    },
    handler: async () => Promise.all(services.runtimes.runtimes.map(present)),
  });

  routes.get('/v1/runtimes/:name', {
    config: { access: { anyKey: true } },
    schema: {
      tags,
      summary: 'One runtime by name (YYYY.MM), with its stage today and whether it is installed',
      params: z.object({ name: z.string() }),
      response: { 200: runtimeJsonSchema, ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request) => {
      const runtime = services.runtimes.get(request.params.name);
      if (!runtime) throw new NotFoundError(`Runtime ${request.params.name} not found`);
      return present(runtime);
    },
  });
}
