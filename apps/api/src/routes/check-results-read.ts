import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseInstant, type AnalyticsStore } from '#analytics';
import { NotFoundError, ValidationError } from '#core';
import { errorResponses, zodRoutes } from '#http';
import type { ReadModels } from '#readmodels';
import { readRun, readRuns } from '../console/runs-query.ts';
import { shownArtifacts } from './check-result-artifacts.ts';
import { wantsConsole } from './web.ts';

const n = z.number().nullable();
/** One script run only: what check-results.v1 carries for it, as stored. */
const scriptRunFields = {
  steps: z
    .array(
      z.object({
        name: z.string(),
        status: z.enum(['passed', 'failed', 'skipped']),
        durationMs: z.number(),
        error: z.string().optional(),
      }),
    )
    .optional(),
  logs: z.string().optional(),
  requests: z.array(z.record(z.string(), z.unknown())).optional(),
  runtimeId: z.string().optional(),
  artifacts: z
    .array(
      z.object({
        id: z.string(),
        kind: z.enum(['screenshot', 'trace', 'response-body']),
        contentType: z.string(),
        bytes: z.number().int(),
        sha256: z.string(),
        name: z.string().optional(),
        expired: z.boolean().optional().describe('Past VIGIL_ARTIFACT_RETENTION_DAYS: named still, no longer kept'),
      }),
    )
    .optional()
    .describe(
      'One run only: its screenshot, Playwright trace and failing response bodies; GET …/artifacts/{artifactId} streams each',
    ),
};
export const runJsonSchema = z
  .object({
    id: z.string(),
    startedAt: z.string(),
    runLocation: z.string(),
    hasFailures: z.boolean(),
    isDegraded: z.boolean(),
    responseTime: z.number(),
    attempts: z.number().int(),
    errorMessage: z.string().nullable(),
    statusCode: n,
    statusText: z.string().nullable(),
    timings: z.record(z.string(), n),
    heartbeatStatus: z.string().nullable(),
    ssl: z.object({ daysRemaining: z.number(), domain: z.string().nullable() }).nullable(),
    pages: z.array(
      z.object({
        index: z.number(),
        url: z.string(),
        TTFB: n,
        FCP: n,
        LCP: n,
        CLS: n,
        TBT: n,
        consoleErrors: z.number(),
        networkErrors: z.number(),
      }),
    ),
    assertions: z
      .array(
        z.object({
          source: z.string(),
          property: z.string(),
          comparison: z.string(),
          target: z.string(),
          passed: z.boolean(),
          actual: z.string(),
          message: z.string().optional(),
        }),
      )
      .nullable()
      .optional()
      .describe("One run only: each assertion's outcome as the run judged it; null when the run stored none"),
    ...scriptRunFields,
  })
  .meta({ id: 'CheckRunResult' });

const querySchema = z.object({
  from: z.string().optional().describe('Unix seconds or ISO 8601, inclusive'),
  to: z.string().optional().describe('Unix seconds or ISO 8601, exclusive'),
  location: z.string().min(1).max(64).optional(),
  hasFailures: z.enum(['true', 'false']).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(10),
  cursor: z.string().max(200).optional().describe('nextCursor of the previous page'),
  page: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe(
      'Page, from 1, of limit runs each; a page past the last answers an empty list. Instead of cursor, which stays stable while new runs arrive',
    ),
});

function instant(name: string, value: string | undefined): Date | undefined {
  return value === undefined ? undefined : parseInstant(value, name);
}

/** Raw runs of a check from the analytics store, and one run by id (the console's run view, RESULT_LINK). */
export function checkResultReadRoutes(
  app: FastifyInstance,
  deps: { readModels: ReadModels; analytics: AnalyticsStore; retentionDays?: number },
): void {
  const routes = zodRoutes(app);
  const ownCheck = async (accountId: string, checkId: string) => {
    const found = await deps.readModels.check(checkId);
    if (found === null || found.accountId !== accountId) throw new NotFoundError(`Check ${checkId} not found`);
    return found.check;
  };

  routes.get('/v1/check-results/:checkId', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: {
      tags: ['check results'],
      summary: 'Raw runs of a check, newest first, by cursor or by page',
      params: z.object({ checkId: z.string().max(64) }),
      querystring: querySchema,
      response: {
        200: z.object({ items: z.array(runJsonSchema), nextCursor: z.string().nullable() }),
        ...errorResponses(400, 401, 403, 404, 429),
      },
    },
    handler: async (request) => {
      const access = request.access!;
      const check = await ownCheck(access.accountId, request.params.checkId);
      const q = request.query;
      const from = instant('from', q.from);
      const to = instant('to', q.to);
      if (from && to && from >= to) throw new ValidationError('to: must be after from');
      if (q.page !== undefined && q.cursor !== undefined)
        throw new ValidationError('page: give page or cursor, not both');
      return readRuns(deps.analytics, {
        accountId: access.accountId,
        checkId: check.id,
        from,
        to,
        location: q.location,
        hasFailures: q.hasFailures === undefined ? undefined : q.hasFailures === 'true',
        cursor: q.cursor,
        limit: q.limit,
        offset: q.page === undefined ? 0 : (q.page - 1) * q.limit,
      });
    },
  });

  // RESULT_LINK points here. A browser following it from an alert (no key, Accept text/html) is sent
  // to the console's run view, screenshot and all; an API client gets the JSON below, as before.
  app.addConstraintStrategy({
    name: 'console',
    storage: () => {
      const handlers = new Map<string, unknown>();
      return {
        get: (value: string) => (handlers.get(value) ?? null) as never,
        set: (value: string, handler: unknown) => void handlers.set(value, handler),
      };
    },
    deriveConstraint: (request: { headers: Record<string, string | string[] | undefined> }) =>
      wantsConsole(request.headers) ? 'browser' : undefined,
    mustMatchWhenDerived: false,
  });
  app.get(
    '/v1/check-results/:checkId/:resultId',
    { constraints: { console: 'browser' }, schema: { hide: true }, config: { access: 'public' } },
    async (request, reply) => {
      const { checkId, resultId } = request.params as { checkId: string; resultId: string };
      return reply.redirect(`/checks/${encodeURIComponent(checkId)}?run=${encodeURIComponent(resultId)}`, 302);
    },
  );

  routes.get('/v1/check-results/:checkId/:resultId', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: {
      tags: ['check results'],
      summary: "One run of a check: timings, each assertion's outcome, error, SSL and pages",
      params: z.object({ checkId: z.string().max(64), resultId: z.string().max(64) }),
      response: { 200: runJsonSchema, ...errorResponses(400, 401, 403, 404, 429) },
    },
    handler: async (request) => {
      const access = request.access!;
      const check = await ownCheck(access.accountId, request.params.checkId);
      const resultId = request.params.resultId.toLowerCase();
      const notFound = new NotFoundError(`Result ${request.params.resultId} not found`);
      if (!/^[0-9a-f-]{36}$/.test(resultId)) throw notFound;
      const run = await readRun(deps.analytics, { accountId: access.accountId, checkId: check.id, resultId });
      if (!run) throw notFound;
      const artifacts = shownArtifacts(run.artifacts, run.startedAt, deps.retentionDays ?? 30);
      return artifacts ? { ...run, artifacts } : run;
    },
  });
}
