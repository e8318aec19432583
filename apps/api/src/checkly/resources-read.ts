import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '#core';
import { maskGroupVariables } from '#domain';
import { zodRoutes } from '#http';
import type { AlertChannelView, CheckGroupView } from '#readmodels';
import type { Access } from '../access.ts';
import type { StatusPageService } from '../console/status-page-service.ts';
import type { ChannelService } from '../services/channels.ts';
import type { ApiServices } from '../services/index.ts';
import { pageQuery, paginate } from './checks-read.ts';
import { findByNumericId, numericId, parseNumericId } from './ids.ts';
import { subscriptionsBy, type Subscription } from './subscriptions.ts';

export interface ResourceReadDeps {
  services: ApiServices;
  channels: ChannelService;
  statusPages: StatusPageService;
  /** The server's public URL, for a status page's address. */
  publicUrl: string;
}

const numericParams = z.object({ id: z.string().max(32) });
const read = { access: { minRole: 'READ_ONLY' as const } };

/**
 * What a Vigil group is in Checkly's terms, stated so a client reads back what it may send. The
 * group's own fields are spread after these.
 */
const impliedGroupSettings = {
  runParallel: false,
  concurrency: 1,
  useGlobalAlertSettings: true,
  retryStrategy: null,
  doubleCheck: false,
};

/** A group in Checkly's shape; variables masked by the one masking rule, as on /v1. */
export function groupJson(
  view: Pick<CheckGroupView, 'group' | 'createdAt' | 'updatedAt'>,
  access: Access,
  subscriptions: Subscription[],
  publicLocations: readonly string[],
) {
  // Vigil keeps a group's private location slugs among its locations, as a check's; Checkly lists them apart.
  const isPublic = new Set(publicLocations);
  const locations = view.group.locations ?? [];
  return {
    ...impliedGroupSettings,
    ...maskGroupVariables(view.group, access),
    locations: locations.filter((location) => isPublic.has(location)),
    privateLocations: locations.filter((location) => !isPublic.has(location)),
    id: numericId(view.group.id),
    activated: true,
    muted: false,
    alertChannelSubscriptions: subscriptions,
    created_at: view.createdAt,
    updated_at: view.updatedAt,
  };
}

/** An alert channel as Checkly shows it: a numeric id, subscriptions naming numeric groups, secrets masked. */
export function channelJson(channels: ChannelService, view: AlertChannelView) {
  return checklyChannel(channels.present(view));
}

/** Vigil's Teams and Discord channels as Checkly has them: WEBHOOK channels of that webhookType. */
const webhookTypeOf: Record<string, string> = { MSTEAMS: 'WEBHOOK_MSTEAMS', DISCORD: 'WEBHOOK_DISCORD' };

export function checklyChannel(presented: ReturnType<ChannelService['present']>) {
  const webhookType = webhookTypeOf[presented.type];
  return {
    ...presented,
    ...(webhookType
      ? { type: 'WEBHOOK', config: { ...(presented.config as Record<string, unknown>), webhookType, method: 'POST' } }
      : {}),
    id: numericId(presented.id),
    autoSubscribe: false,
    subscriptions: presented.subscriptions.map((subscription) => ({
      ...subscription,
      groupId: subscription.groupId === null ? null : numericId(subscription.groupId),
    })),
    created_at: presented.createdAt,
    updated_at: presented.updatedAt,
  };
}

export async function groupByNumericId(deps: { services: ApiServices }, access: Access, raw: string | number) {
  const wanted = parseNumericId(raw, 'Check group');
  const groups = await deps.services.readModels.checkGroups(access.accountId);
  const found = findByNumericId(groups, (view) => view.group.id, wanted);
  if (!found) throw new NotFoundError(`Check group ${raw} not found`);
  return found;
}

export async function channelByNumericId(deps: { services: ApiServices }, access: Access, raw: string | number) {
  const wanted = parseNumericId(raw, 'Alert channel');
  const channels = await deps.services.readModels.alertChannels(access.accountId);
  const found = findByNumericId(channels, (view) => view.channel.id, wanted);
  if (!found) throw new NotFoundError(`Alert channel ${raw} not found`);
  return found;
}

/** Check groups, alert channels and status pages, read in Checkly's shapes. */
export function resourceReadRoutes(app: FastifyInstance, deps: ResourceReadDeps): void {
  const routes = zodRoutes(app);

  const groupSubscriptions = async (access: Access) =>
    subscriptionsBy(await deps.services.readModels.alertChannels(access.accountId), 'groupId');
  routes.get('/v1/check-groups', {
    config: read,
    schema: { querystring: z.object(pageQuery) },
    handler: async (request, reply) => {
      const access = request.access!;
      const groups = await deps.services.readModels.checkGroups(access.accountId);
      const subscriptions = await groupSubscriptions(access);
      return paginate(reply, groups, request.query.page, request.query.limit).map((view) =>
        groupJson(view, access, subscriptions.get(view.group.id) ?? [], deps.services.locations.publicLocations),
      );
    },
  });
  // The SDK's GetGroupV2 reads /v2/check-groups/{id}, the same group.
  for (const version of ['v1', 'v2'])
    routes.get(`/${version}/check-groups/:id`, {
      config: read,
      schema: { params: numericParams },
      handler: async (request) => {
        const access = request.access!;
        const view = await groupByNumericId(deps, access, request.params.id);
        const subscriptions = (await groupSubscriptions(access)).get(view.group.id) ?? [];
        return groupJson(view, access, subscriptions, deps.services.locations.publicLocations);
      },
    });

  routes.get('/v1/alert-channels', {
    config: read,
    schema: { querystring: z.object(pageQuery) },
    handler: async (request, reply) => {
      const channels = await deps.services.readModels.alertChannels(request.access!.accountId);
      return paginate(reply, channels, request.query.page, request.query.limit).map((view) =>
        channelJson(deps.channels, view),
      );
    },
  });
  routes.get('/v1/alert-channels/:id', {
    config: read,
    schema: { params: numericParams },
    handler: async (request) =>
      channelJson(deps.channels, await channelByNumericId(deps, request.access!, request.params.id)),
  });

  const pageJson = async (access: Access, page: Awaited<ReturnType<StatusPageService['get']>>) => {
    const checks = await deps.services.readModels.checksByIds(page.checkIds);
    const services = checks
      .filter((view) => view.accountId === access.accountId)
      .map((view) => ({ id: view.check.id, name: view.check.name }));
    return {
      id: page.id,
      name: page.title,
      url: `${deps.publicUrl.replace(/\/$/, '')}/status/${page.slug}`,
      customDomain: page.customDomain,
      isPrivate: false,
      defaultTheme: 'AUTO',
      cards: [{ id: page.id, name: page.title, services }],
    };
  };
  routes.get('/v1/status-pages', {
    config: read,
    schema: {
      querystring: z.object({
        limit: z.coerce.number().int().min(1).max(100).default(10),
        nextId: z.string().max(64).optional(),
      }),
    },
    handler: async (request) => {
      const access = request.access!;
      const all = await deps.statusPages.list(access);
      const start = request.query.nextId
        ? Math.max(
            0,
            all.findIndex((page) => page.id === request.query.nextId),
          )
        : 0;
      const slice = all.slice(start, start + request.query.limit);
      const entries = await Promise.all(slice.map((page) => pageJson(access, page)));
      return { entries, nextId: all[start + request.query.limit]?.id ?? null, length: entries.length };
    },
  });
  routes.get('/v1/status-pages/:id', {
    config: read,
    schema: { params: z.object({ id: z.string().max(64) }) },
    handler: async (request) =>
      pageJson(request.access!, await deps.statusPages.get(request.access!, request.params.id)),
  });
}
