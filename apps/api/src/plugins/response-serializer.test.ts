import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileWriter, differences, random, sample } from '#http';
import { accountRoutes } from '../routes/accounts.ts';
import { alertChannelRoutes } from '../routes/alert-channels.ts';
import { analyticsRoutes } from '../routes/analytics.ts';
import { apiKeyRoutes } from '../routes/api-keys.ts';
import { checkResultRoutes } from '../routes/check-results.ts';
import { checkRunRoutes } from '../routes/check-runs.ts';
import { checkRoutes } from '../routes/checks.ts';
import { consoleRoutes } from '../routes/console.ts';
import { pingRoutes } from '../routes/ping.ts';
import { runtimeRoutes } from '../routes/runtimes.ts';
import { userRoutes } from '../routes/users.ts';
import { variableRoutes } from '../routes/variables.ts';
import { whoamiRoutes } from '../routes/whoami.ts';

/** Stands in for every service: registering routes only stores handlers, which never run here. */
const stub: any = new Proxy(function () {}, {
  get: (_t, key) => (key === 'then' ? undefined : stub),
  apply: () => stub,
});

/** Every response schema of every API route, as app.ts registers them. */
function routeSchemas(): { name: string; schema: z.ZodType }[] {
  const found: { name: string; schema: z.ZodType }[] = [];
  const app = Fastify();
  app.addHook('onRoute', (route) => {
    for (const [status, schema] of Object.entries(route.schema?.response ?? {}))
      if (schema instanceof z.ZodType) found.push({ name: `${String(route.method)} ${route.url} ${status}`, schema });
  });
  for (const register of [
    accountRoutes,
    userRoutes,
    apiKeyRoutes,
    whoamiRoutes,
    variableRoutes,
    runtimeRoutes,
    checkRoutes,
    analyticsRoutes,
    checkResultRoutes,
    checkRunRoutes,
    pingRoutes,
    alertChannelRoutes,
    consoleRoutes,
  ] as ((app: unknown, deps: unknown) => void)[])
    register(
      app,
      register === analyticsRoutes ? { readModels: stub, analytics: stub, stateStore: stub, cacheTtlMs: 0 } : stub,
    );
  return found;
}

describe('compiled serializer on every API response schema', () => {
  const schemas = routeSchemas();

  it('finds the routes, and writes the hot read routes inline ', () => {
    expect(schemas.length).toBeGreaterThan(100);
    const stats = (name: string) => compileWriter(schemas.find((s) => s.name === name)!.schema).stats;
    expect(stats('GET /v1/variables/:key 200')).toEqual({ inline: 5, delegated: 0 });
    expect(stats('GET /v1/accounts/me 200').delegated).toBe(0);
  });

  it('answers as the zod path does, byte for byte, on fuzzed values of each schema', () => {
    let seed = 1;
    for (const { schema } of schemas) {
      const rng = random(seed++);
      const values = Array.from({ length: 40 }, () => sample(schema, rng));
      expect(differences(schema, values)).toEqual([]);
    }
  });
});
