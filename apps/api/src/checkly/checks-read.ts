import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { AnalyticsStore } from '#analytics';
import { NotFoundError } from '#core';
import { checkTypeSchema, type CheckResponse, type ScriptFile } from '#domain';
import { zodRoutes } from '#http';
import { CheckStatusReads, type CheckStatus, type CheckView } from '#readmodels';
import { readRuns } from '../console/runs-query.ts';
import type { ApiServices } from '../services/index.ts';
import { numericId } from './ids.ts';
import { suiteJson } from './project-bundle.ts';
import { subscriptionsByCheck } from './subscriptions.ts';

/** Checkly's list paging: page and limit in, `Content-Range: first-last/total` out. */
export const pageQuery = {
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(10),
};

export function paginate<T>(reply: FastifyReply, all: T[], page: number, limit: number): T[] {
  const start = (page - 1) * limit;
  const items = all.slice(start, start + limit);
  const range = items.length === 0 ? '*' : `${start}-${start + items.length - 1}`;
  void reply.header('content-range', `${range}/${all.length}`);
  return items;
}

/** A Vigil check in Checkly's shape: numeric groupId, no retry strategy as null, Checkly's timestamps. */
export function checkJson(
  view: Pick<CheckView, 'check' | 'createdAt' | 'updatedAt'>,
  present: (check: CheckView['check']) => CheckResponse,
  publicLocations: readonly string[],
) {
  const check = present(view.check);
  // Vigil keeps a check's private location slugs among its locations; Checkly lists them apart.
  const isPublic = new Set(publicLocations);
  const retry = (check as { retryStrategy?: { type: string } }).retryStrategy;
  return {
    ...check,
    groupId: check.groupId === null ? null : numericId(check.groupId),
    locations: check.locations.filter((location) => isPublic.has(location)),
    privateLocations: check.locations.filter((location) => !isPublic.has(location)),
    ...(retry !== undefined ? { retryStrategy: retry.type === 'NONE' ? null : retry } : {}),
    useGlobalAlertSettings: check.alertSettings === null,
    ...(check.checkType === 'PLAYWRIGHT' ? suiteJson((check as { files?: ScriptFile[] }).files) : {}),
    createdAt: view.createdAt,
    updatedAt: view.updatedAt,
    created_at: view.createdAt,
    updated_at: view.updatedAt,
  };
}

const strings = z.union([z.string().max(64), z.array(z.string().max(64)).max(50)]);
const listQuery = z.object({
  ...pageQuery,
  // axios sends an array as tag[]=a&tag[]=b.
  tag: strings.optional(),
  'tag[]': strings.optional(),
  checkType: checkTypeSchema.optional(),
  search: z.string().max(255).optional(),
  status: z.enum(['passing', 'failing', 'degraded']).optional(),
});

function statusOf(status: CheckStatus | undefined): 'passing' | 'failing' | 'degraded' | null {
  if (!status) return null;
  if (status.hasFailures || status.hasErrors) return 'failing';
  return status.isDegraded ? 'degraded' : 'passing';
}

/** Checks, their statuses and results, as `checkly checks list|get|delete` and the SDK read them. */
export function checkReadRoutes(app: FastifyInstance, services: ApiServices, analytics: AnalyticsStore | undefined) {
  const routes = zodRoutes(app);
  const read = { access: { minRole: 'READ_ONLY' as const } };
  const statuses = new CheckStatusReads(services.stateStore);
  const present = (check: CheckView['check']) => services.checks.present(check);

  routes.get('/v1/checks', {
    config: read,
    schema: { querystring: listQuery },
    handler: async (request, reply) => {
      const { accountId } = request.access!;
      const q = request.query;
      const tags = [q.tag ?? [], q['tag[]'] ?? []].flat();
      const needle = q.search?.toLowerCase();
      const [views, byCheck] = await Promise.all([
        services.readModels.checks(accountId),
        q.status ? statuses.statuses(accountId) : Promise.resolve(new Map<string, CheckStatus>()),
      ]);
      const all = views
        .filter(({ check }) => !q.checkType || check.checkType === q.checkType)
        .filter(({ check }) => tags.every((tag) => check.tags.includes(tag)))
        .filter(({ check }) => !needle || check.name.toLowerCase().includes(needle))
        .filter(({ check }) => !q.status || statusOf(byCheck.get(check.id)) === q.status);
      const subscriptions = subscriptionsByCheck(await services.readModels.alertChannels(accountId));
      return paginate(reply, all, q.page, q.limit).map((view) => ({
        ...checkJson(view, present, services.locations.publicLocations),
        alertChannelSubscriptions: subscriptions.get(view.check.id) ?? [],
      }));
    },
  });

  routes.get('/v1/checks/:id', {
    config: read,
    schema: { params: z.object({ id: z.string().max(64) }) },
    handler: async (request) => {
      const access = request.access!;
      const view = await services.checks.getCheck(access, request.params.id);
      const subscriptions = subscriptionsByCheck(await services.readModels.alertChannels(access.accountId));
      return {
        ...checkJson(view, present, services.locations.publicLocations),
        alertChannelSubscriptions: subscriptions.get(view.check.id) ?? [],
      };
    },
  });

  routes.delete('/v1/checks/:id', {
    config: { access: { minRole: 'READ_WRITE' } },
    schema: { params: z.object({ id: z.string().max(64) }) },
    handler: async (request, reply) => {
      await services.checks.deleteCheck(request.access!, request.params.id);
      return reply.code(204).send();
    },
  });

  const statusJson = (check: CheckView['check'], status: CheckStatus) => ({
    ...status,
    name: check.name,
    checkType: check.checkType,
  });
  routes.get('/v1/check-statuses', {
    config: read,
    handler: async (request) => {
      const { accountId } = request.access!;
      const [checks, byCheck] = await Promise.all([
        services.readModels.checks(accountId),
        statuses.statuses(accountId),
      ]);
      return checks.flatMap(({ check }) => {
        const status = byCheck.get(check.id);
        return status ? [statusJson(check, status)] : [];
      });
    },
  });

  routes.get('/v1/check-statuses/:id', {
    config: read,
    schema: { params: z.object({ id: z.string().max(64) }) },
    handler: async (request) => {
      const access = request.access!;
      const { check } = await services.checks.getCheck(access, request.params.id);
      const status = await statuses.status(access.accountId, check.id);
      if (!status) throw new NotFoundError(`Check ${check.id} has no status yet: it has not run`);
      return statusJson(check, status);
    },
  });

  routes.get('/v2/check-results/:id', {
    config: read,
    schema: {
      params: z.object({ id: z.string().max(64) }),
      querystring: z.object({
        limit: z.coerce.number().int().min(1).max(100).default(10),
        nextId: z.string().max(200).optional(),
        // A projection the CLI asks for to save bandwidth; every field is sent, which it allows.
        fields: z.string().max(1000).optional(),
        from: z.coerce.number().int().min(0).optional(),
        to: z.coerce.number().int().min(0).optional(),
        hasFailures: z.enum(['true', 'false', '1', '0']).optional(),
        location: z.string().max(64).optional(),
      }),
    },
    handler: async (request) => {
      const access = request.access!;
      const { check } = await services.checks.getCheck(access, request.params.id);
      if (!analytics) return { entries: [], nextId: null, length: 0 };
      const q = request.query;
      const page = await readRuns(analytics, {
        accountId: access.accountId,
        checkId: check.id,
        from: q.from === undefined ? undefined : new Date(q.from * 1000),
        to: q.to === undefined ? undefined : new Date(q.to * 1000),
        location: q.location,
        hasFailures: q.hasFailures === undefined ? undefined : q.hasFailures === 'true' || q.hasFailures === '1',
        cursor: q.nextId,
        limit: q.limit,
        offset: 0,
      });
      const entries = page.items.map((run) => resultJson(check, run));
      return { entries, nextId: page.nextCursor, length: entries.length };
    },
  });
}

/** One run as Checkly's check result: its own ids and flags, the run's timings beside them. */
export function resultJson(check: CheckView['check'], run: Awaited<ReturnType<typeof readRuns>>['items'][number]) {
  const stoppedAt = new Date(Date.parse(run.startedAt) + Math.round(run.responseTime)).toISOString();
  return {
    ...run,
    checkId: check.id,
    name: check.name,
    // Whole ms: the SDK reads responseTime as an int64.
    responseTime: Math.round(run.responseTime),
    overMaxResponseTime: run.responseTime > check.maxResponseTime,
    hasErrors: run.errorMessage !== null && !run.hasFailures,
    stoppedAt,
    created_at: run.startedAt,
    resultType: 'FINAL',
    attempts: run.attempts,
  };
}
