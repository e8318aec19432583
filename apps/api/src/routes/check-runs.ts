import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { assertionSchema, checkInputSchema, checkResponseSchema, checkResultSchema } from '#domain';
import { errorResponses, zodRoutes } from '#http';
import type { CheckRunService } from '../services/check-runs.ts';
import type { CheckService } from '../services/checks.ts';
import { idParams } from './schemas.ts';

const runReport = z
  .object({
    result: checkResultSchema,
    assertions: z.array(
      z.object({
        assertion: assertionSchema,
        passed: z.boolean(),
        actual: z.string().describe('What was measured, truncated'),
        message: z.string().optional(),
      }),
    ),
  })
  .meta({ id: 'CheckRun' });

/** Running checks on demand: the editor's "Run" button, "run now", and heartbeat token rotation. */
export function checkRunRoutes(app: FastifyInstance, deps: { runs: CheckRunService; checks: CheckService }): void {
  const routes = zodRoutes(app);
  const tags = ['checks'];
  const write = { access: { minRole: 'READ_WRITE' as const } };

  routes.post('/v1/checks/test', {
    config: write,
    schema: {
      tags,
      summary: 'Run an unsaved check definition once and answer with the result; nothing is stored',
      description:
        "The editor's \"Run\" button. The body is a check as for POST /v1/checks. The run uses the account's variables (and the group's, with groupId), from the first of its locations. It waits for the run, at most 60 s, and takes one of the account's 5 run slots (429 with Retry-After when none is free). Values the caller may not read (secrets; locked values below ADMIN unless the caller created them) are substituted but shown as ********.",
      body: checkInputSchema,
      response: { 200: runReport, ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request) => deps.runs.test(request.access!, request.body),
  });

  routes.post('/v1/checks/:id/trigger', {
    config: write,
    schema: {
      tags,
      summary: 'Run a check now from each of its locations; the runs are stored and alert like scheduled ones',
      description:
        "Each location's run takes one of the account's 5 run slots (shared with test runs). The request starts only when a slot is free (else 429 with Retry-After); locations beyond the free slots run as slots free up, so a check with many locations answers after several rounds of at most 60 s each.",
      params: idParams,
      response: { 200: z.object({ results: z.array(runReport) }), ...errorResponses(400, 401, 403, 404, 429) },
    },
    handler: async (request) => deps.runs.trigger(request.access!, request.params.id),
  });

  routes.post('/v1/checks/:id/heartbeat/rotate', {
    config: write,
    schema: {
      tags,
      summary: 'Give a heartbeat check a new ping URL; the old one stops working at once',
      params: idParams,
      response: { 200: checkResponseSchema, ...errorResponses(400, 401, 403, 404, 409, 429) },
    },
    handler: async (request) => deps.checks.rotateHeartbeatToken(request.access!, request.params.id),
  });
}
