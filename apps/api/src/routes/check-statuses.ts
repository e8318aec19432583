import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AnalyticsStore } from '#analytics';
import { NotFoundError } from '#core';
import { alertEventSchema } from '#alerting';
import { isNoData } from '#domain';
import { errorResponses, zodRoutes } from '#http';
import { CheckStatusReads, type CheckStatus, type CheckView, type ReadModels } from '#readmodels';
import { skippedLastHour } from '#scheduling';
import type { StateStore } from '#statestore';
import { readSummaries, type CheckSummary } from '../console/summary-query.ts';
import { pageQuerySchema } from './schemas.ts';

export interface ConsoleReadDeps {
  readModels: ReadModels;
  stateStore: StateStore;
  analytics: AnalyticsStore | undefined;
  now?: () => Date;
  /** Where checks that name no location run: their skips are counted there. */
  defaultLocation?: string;
}

const SUMMARY_TTL_MS = 30_000;

export const checkStatusJsonSchema = z
  .object({
    checkId: z.string(),
    name: z.string(),
    checkType: z.string(),
    hasFailures: z.boolean(),
    hasErrors: z.boolean(),
    isDegraded: z.boolean(),
    noData: z
      .boolean()
      .describe(
        'NO_DATA: an external check (no definition) whose last result is older than two frequency windows; ' +
          'the other fields describe that last result',
      ),
    longestRun: z.number().nullable().describe('ms, the slowest run seen'),
    shortestRun: z.number().nullable().describe('ms, the fastest run seen'),
    lastRunLocation: z.string().nullable(),
    lastCheckRunId: z.string().nullable(),
    lastRunAt: z.string().nullable(),
    lastResponseTime: z.number().nullable(),
    sslDaysRemaining: z.number().int().nullable(),
    created_at: z.string(),
    updated_at: z.string().nullable(),
    availability24h: z.number().nullable().optional().describe('with=summary24h only: % passing runs in 24 h'),
    p95Sparkline: z
      .array(z.number().nullable())
      .optional()
      .describe('with=summary24h only: hourly p95 response time (ms), oldest first'),
    skipped: z
      .array(
        z.object({ location: z.string(), lastHour: z.number().int(), reason: z.enum(['saturated', 'runners-down']) }),
      )
      .optional()
      .describe(
        'checkId reads only: per location, the windows its runners skipped in the last hour rather than run late ' +
          '(saturated runner); none listed when none were skipped. Skipped windows have no result: analytics show no data',
      ),
  })
  .meta({ id: 'CheckStatus' });

export const checkAlertJsonSchema = alertEventSchema.meta({ id: 'CheckAlert' });

/**
 * Current status per check (from the check-status read model) and alert history (from the alert
 * events). Checks with no run yet have no status, as in Checkly.
 */
export function checkStatusRoutes(app: FastifyInstance, deps: ConsoleReadDeps): void {
  const routes = zodRoutes(app);
  const statuses = new CheckStatusReads(deps.stateStore);
  const now = deps.now ?? (() => new Date());
  const read = { access: { minRole: 'READ_ONLY' as const } };

  const summaries = async (accountId: string): Promise<Map<string, CheckSummary>> => {
    if (!deps.analytics) return new Map();
    const key = `console-cache:summary24h:${accountId}`;
    const cached = await deps.stateStore.get(key);
    if (cached !== null) return new Map(JSON.parse(cached) as [string, CheckSummary][]);
    const fresh = await readSummaries(deps.analytics, accountId, now());
    await deps.stateStore.set(key, JSON.stringify([...fresh]), { ttlMs: SUMMARY_TTL_MS });
    return fresh;
  };

  const skipsOf = async (check: CheckView['check'], at: number) => {
    const frequencyMs = 'frequency' in check && typeof check.frequency === 'number' ? check.frequency * 60_000 : 0;
    if (frequencyMs <= 0) return [];
    const named = 'locations' in check && Array.isArray(check.locations) ? (check.locations as string[]) : [];
    const locations = named.length > 0 ? named : deps.defaultLocation ? [deps.defaultLocation] : [];
    const counts = await Promise.all(
      locations.map(async (location) => ({
        location,
        ...(await skippedLastHour(deps.stateStore, location, check.id, frequencyMs, at)),
      })),
    );
    return counts.flatMap(({ location, lastHour, reason }) =>
      lastHour > 0 ? [{ location, lastHour, reason: reason ?? ('saturated' as const) }] : [],
    );
  };

  routes.get('/v1/check-statuses', {
    config: read,
    schema: {
      tags: ['check status'],
      summary: 'The current status of every check in the account that has run, in one request',
      querystring: z.object({
        with: z
          .enum(['summary24h'])
          .optional()
          .describe('summary24h adds 24 h availability and an hourly p95 sparkline (one analytics query, cached 30 s)'),
        checkId: z.uuid().optional().describe("Only this check's status (an empty list if it has none or is unknown)"),
      }),
      response: { 200: z.array(checkStatusJsonSchema), ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request) => {
      const accountId = request.access!.accountId;
      const summary = request.query.with === 'summary24h' ? summaries(accountId) : Promise.resolve(null);
      const at = now().getTime();
      const view = (check: CheckView['check'], status: CheckStatus, extra: Map<string, CheckSummary> | null) => ({
        ...status,
        noData: isNoData(check, status.lastRunAt, at),
        name: check.name,
        checkType: check.checkType,
        ...(extra ? (extra.get(check.id) ?? { availability24h: null, p95Sparkline: [] }) : {}),
      });
      const only = request.query.checkId?.toLowerCase();
      if (only !== undefined) {
        // The check page's read: one check and one status, not the account's whole list.
        const found = await deps.readModels.check(only);
        if (found === null || found.accountId !== accountId) return [];
        const [status, extra, skipped] = await Promise.all([
          statuses.status(accountId, found.check.id),
          summary,
          skipsOf(found.check, at),
        ]);
        return status ? [{ ...view(found.check, status, extra), ...(skipped.length > 0 ? { skipped } : {}) }] : [];
      }
      const [checks, byCheck, extra] = await Promise.all([
        deps.readModels.checks(accountId),
        statuses.statuses(accountId),
        summary,
      ]);
      return checks.flatMap(({ check }) => {
        const status = byCheck.get(check.id);
        return status ? [view(check, status, extra)] : [];
      });
    },
  });

  const alertList = z.object({ items: z.array(checkAlertJsonSchema), total: z.number().int() });
  routes.get('/v1/check-alerts', {
    config: read,
    schema: {
      tags: ['check status'],
      summary: 'Alert history of the account, newest first',
      querystring: pageQuerySchema,
      response: { 200: alertList, ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request, reply) => {
      const page = await statuses.alerts({ accountId: request.access!.accountId }, request.query);
      void reply.header('x-total-count', String(page.total));
      return page;
    },
  });

  routes.get('/v1/check-alerts/:checkId', {
    config: read,
    schema: {
      tags: ['check status'],
      summary: "One check's alert history, newest first",
      params: z.object({ checkId: z.string().max(64) }),
      querystring: pageQuerySchema,
      response: { 200: alertList, ...errorResponses(400, 401, 403, 404, 429) },
    },
    handler: async (request, reply) => {
      const accountId = request.access!.accountId;
      const found = await deps.readModels.check(request.params.checkId);
      if (found === null || found.accountId !== accountId)
        throw new NotFoundError(`Check ${request.params.checkId} not found`);
      const page = await statuses.alerts({ accountId, checkId: found.check.id }, request.query);
      void reply.header('x-total-count', String(page.total));
      return page;
    },
  });
}
