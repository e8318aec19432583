import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AnalyticsStore } from '#analytics';
import { NotFoundError, ValidationError } from '#core';
import { zodRoutes } from '#http';
import { readRun, readRuns } from '../console/runs-query.ts';
import type { ApiServices } from '../services/index.ts';
import { resultJson } from './checks-read.ts';

const read = { access: { minRole: 'READ_ONLY' as const } };
const truthy = z.enum(['1', '0', 'true', 'false']);

/**
 * GET /v1/check-results/{checkId} as Checkly answers it (the SDK's GetCheckResults): a plain
 * array, paged by page and limit, filtered by from/to (unix seconds), location and hasFailures
 * (1 or true); and one result by id. Runs come from the analytics store, as on /v1.
 */
export function resultReadRoutes(app: FastifyInstance, services: ApiServices, analytics: AnalyticsStore | undefined) {
  const routes = zodRoutes(app);

  routes.get('/v1/check-results/:checkId', {
    config: read,
    schema: {
      params: z.object({ checkId: z.string().max(64) }),
      querystring: z.object({
        page: z.coerce.number().int().min(1).max(1_000_000).default(1),
        limit: z.coerce.number().int().min(1).max(100).default(10),
        from: z.coerce.number().int().min(0).optional(),
        to: z.coerce.number().int().min(0).optional(),
        location: z.string().min(1).max(64).optional(),
        hasFailures: truthy.optional(),
        checkType: z.string().max(32).optional(),
        resultType: z.enum(['FINAL', 'ATTEMPT', 'ALL']).optional(),
      }),
    },
    handler: async (request) => {
      const access = request.access!;
      const { check } = await services.checks.getCheck(access, request.params.checkId);
      const q = request.query;
      if (q.checkType && q.checkType !== check.checkType)
        throw new ValidationError(`checkType: check ${check.id} is a ${check.checkType} check`);
      if (q.from !== undefined && q.to !== undefined && q.from >= q.to)
        throw new ValidationError('to: must be after from');
      if (!analytics) return [];
      const page = await readRuns(analytics, {
        accountId: access.accountId,
        checkId: check.id,
        from: q.from === undefined ? undefined : new Date(q.from * 1000),
        to: q.to === undefined ? undefined : new Date(q.to * 1000),
        location: q.location,
        // hasFailures=1|true keeps the failing runs; 0 or false (or absent) filters nothing, as in Checkly.
        hasFailures: q.hasFailures === '1' || q.hasFailures === 'true' ? true : undefined,
        limit: q.limit,
        offset: (q.page - 1) * q.limit,
      });
      return page.items.map((run) => resultJson(check, run));
    },
  });

  routes.get('/v1/check-results/:checkId/:resultId', {
    config: read,
    schema: { params: z.object({ checkId: z.string().max(64), resultId: z.string().max(64) }) },
    handler: async (request) => {
      const access = request.access!;
      const { check } = await services.checks.getCheck(access, request.params.checkId);
      const resultId = request.params.resultId.toLowerCase();
      const notFound = new NotFoundError(`Result ${request.params.resultId} not found`);
      if (!analytics || !/^[0-9a-f-]{36}$/.test(resultId)) throw notFound;
      const run = await readRun(analytics, { accountId: access.accountId, checkId: check.id, resultId });
      if (!run) throw notFound;
      return resultJson(check, run);
    },
  });

  routes.get('/v1/locations', {
    config: read,
    handler: async (request) =>
      (await services.locations.known(request.access!.accountId)).map((name) => ({ region: name, name })),
  });
}
