import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  createAnalyticsReader,
  describeAllowedMetrics,
  groupByOptions,
  parseAnalyticsParams,
  QUICK_RANGES,
  statusFilterOptions,
  type AnalyticsStore,
  type CheckWindow,
} from '#analytics';
import { NotFoundError } from '#core';
import { checkTypes, type ResultCheckType } from '#domain';
import { errorResponses, zodRoutes } from '#http';
import type { ReadModels } from '#readmodels';
import type { StateStore } from '#statestore';
import { analyticsCacheKey, createAnalyticsCache, MAX_CACHE_TTL_MS } from '../analytics/cache.ts';
import { catalogueFor, parseCatalogueOptions, parseCheckType } from '../analytics/catalogue-query.ts';
import { catalogueCheckTypes, metricCategories } from '../analytics/catalogue.ts';
import { createCheckMemo } from '../analytics/check-memo.ts';
import { analyticsKinds, kindRateLimitBuckets, type AnalyticsKind } from '../analytics/kinds.ts';
import { idParams } from './schemas.ts';

export interface AnalyticsRouteDeps {
  readModels: ReadModels;
  analytics: AnalyticsStore;
  stateStore: StateStore;
  now?: () => Date;
  /** How long an answer may be served from the cache; at most (and by default) 30 s, 0 turns it off. */
  cacheTtlMs?: number;
  /** Recent runs of checks read before (analytics/check-window.ts); unset, every answer asks the engine. */
  window?: CheckWindow;
}

const listParam = z.union([z.string(), z.array(z.string())]).optional();
const value = z.union([z.string(), z.number(), z.null()]);
const answerSchema = z
  .object({
    checkId: z.string(),
    name: z.string(),
    checkType: z.enum(checkTypes),
    activated: z.boolean(),
    muted: z.boolean(),
    frequency: z.number(),
    from: z.string().describe('Start of the window, ISO 8601, inclusive'),
    to: z.string().describe('End of the window, ISO 8601, exclusive'),
    tags: z.array(z.string()),
    series: z
      .array(z.looseObject({ data: z.array(z.record(z.string(), value)) }))
      .describe(
        'One entry per group ({<groupBy>: key, data}), or one entry when not grouped. data holds one point of metrics; with aggregationInterval one point per time bucket ' +
          '(timestamp = bucket start, aligned to the epoch, empty buckets null); for raw metrics the runs, newest first (startedAt, resultId, runLocation), ' +
          'one entry per page of each run (with pageIndex and pageUrl) when a browser page metric is asked for.',
      ),
    pagination: z.object({ page: z.number(), limit: z.number() }),
    metadata: z.record(z.string(), z.object({ unit: z.string(), label: z.string(), aggregation: z.string() })),
  })
  .meta({ id: 'CheckAnalytics' });

function querySchema(checkType: ResultCheckType) {
  const groups = groupByOptions[checkType];
  return z.object({
    from: z
      .string()
      .optional()
      .describe(
        'Start of the window: unix seconds or ISO 8601. With to, overrides quickRange; alone, the window runs to now.',
      ),
    to: z.string().optional().describe('End of the window (exclusive): unix seconds or ISO 8601; needs from.'),
    quickRange: z
      .enum(QUICK_RANGES)
      .optional()
      .describe('Default last24Hours. Calendar ranges are UTC; weeks start on Monday.'),
    aggregationInterval: z.coerce
      .number()
      .int()
      .min(1)
      .max(43_200)
      .optional()
      .describe('Bucket size in minutes (1–43200); at most 10,000 buckets per window.'),
    filterByStatus: listParam.describe(`Comma-separated or repeated: ${statusFilterOptions(checkType).join(', ')}`),
    'filterByStatus[]': listParam,
    groupBy: z
      .string()
      .optional()
      .describe(
        groups.length === 0 ? 'Not available: heartbeat analytics cannot be grouped.' : `One of ${groups.join(', ')}`,
      ),
    metrics: listParam.describe(`Required, comma-separated or repeated. ${describeAllowedMetrics(checkType)}.`),
    'metrics[]': listParam,
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe('Series entries (or raw runs) per page, 1–100, default 10.'),
    page: z.coerce.number().int().min(1).optional().describe('Page, from 1.'),
  });
}

const definitionSchema = z
  .looseObject({ name: z.string(), displayName: z.string(), unit: z.string() })
  .meta({ id: 'MetricDefinition' });
const catalogueSchema = z
  .object({
    data: z.object({
      responseTimeMetrics: z.array(definitionSchema),
      successMetrics: z.array(definitionSchema),
      volumeMetrics: z.array(definitionSchema),
      browserSpecificMetrics: z.array(definitionSchema),
      heartbeatSpecificMetrics: z.array(definitionSchema),
    }),
    meta: z.object({
      totalMetrics: z.number().int(),
      categories: z.array(z.string()),
      checkTypes: z.array(z.string()),
    }),
  })
  .meta({ id: 'MetricsCatalogue' });
const flag = z.enum(['true', 'false', '1', '0']).optional();
const catalogueQuery = z.object({
  category: z.enum(metricCategories).optional(),
  includeThresholds: flag.describe('Default true: goodThreshold, needsImprovementThreshold and guideline bands'),
  format: z.enum(['detailed', 'summary']).optional().describe('Default detailed'),
  includeExamples: flag.describe('Default false'),
  includeCalculations: flag.describe('Default false'),
});

export function analyticsRoutes(app: FastifyInstance, deps: AnalyticsRouteDeps): void {
  const routes = zodRoutes(app);
  const tags = ['analytics'];
  const now = deps.now ?? (() => new Date());
  const ttlMs = deps.cacheTtlMs ?? MAX_CACHE_TTL_MS;
  const reader = createAnalyticsReader(deps.analytics, { window: deps.window });
  const cache = createAnalyticsCache(deps.stateStore, { ttlMs, log: app.log });
  const checks = createCheckMemo(deps.readModels);

  for (const [kind, checkType] of Object.entries(analyticsKinds) as [AnalyticsKind, ResultCheckType][]) {
    const bucket = kindRateLimitBuckets[kind];
    routes.get(`/v1/analytics/${kind}/:id`, {
      config: { access: { minRole: 'READ_ONLY' }, ...(bucket ? { rateLimitBucket: bucket } : {}) },
      schema: {
        tags,
        summary: `Analytics of ${/^[AEIOU]/.test(checkType) ? 'an' : 'a'} ${checkType} check${bucket ? ' (30 requests per 60 s per account)' : ''}; answers may be up to 30 s old (cached)`,
        params: idParams,
        querystring: querySchema(checkType),
        response: { 200: answerSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
      handler: async (request) => {
        const access = request.access!;
        const id = request.params.id;
        const found = checks.peek(id) ?? (await checks.read(id, access.accountId));
        // Another account's check answers exactly like a missing one.
        if (found === null || found.accountId !== access.accountId) throw new NotFoundError(`Check ${id} not found`);
        const check = found.check;
        if (check.checkType !== checkType) {
          throw new NotFoundError(
            `Check ${check.id} has type ${check.checkType}, not ${checkType}; ask the analytics endpoint of its type`,
          );
        }
        const at = now();
        const parsed = parseAnalyticsParams(request.query, { checkType, now: at });
        const scope = { accountId: access.accountId, checkId: check.id, checkType };
        // The check's change token comes with the cache's read (one round trip): on a miss the
        // check window then needs no read of its own.
        const answer = await cache.answer(
          analyticsCacheKey(scope, parsed, at, ttlMs),
          (token) => reader.read({ ...parsed, ...scope }, token === undefined ? undefined : { token }),
          deps.window?.tokenKey(scope),
        );
        return {
          checkId: check.id,
          name: check.name,
          checkType: check.checkType,
          activated: check.activated,
          muted: check.muted,
          frequency: check.frequency,
          from: answer.from,
          to: answer.to,
          tags: check.tags,
          series: answer.series,
          pagination: answer.pagination,
          metadata: answer.metadata,
        };
      },
    });
  }

  routes.get('/v1/analytics/metrics/:checkType', {
    config: { access: { minRole: 'READ_ONLY' } },
    schema: {
      tags,
      summary: 'The metrics catalogue of a check type: definitions, units, precision, ranges and thresholds',
      params: z.object({ checkType: z.enum(catalogueCheckTypes) }),
      querystring: catalogueQuery,
      response: { 200: catalogueSchema, ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request) =>
      catalogueFor(parseCheckType(request.params.checkType), parseCatalogueOptions(request.query)),
  });
}
