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

export interface ResourceReadDeps {
  services: ApiServices;
  channels: ChannelService;
  statusPages: StatusPageService;
  /** The server's public URL, for a status page's address. */
  publicUrl: string;
}

const numericParams = z.object({ id: z.string().max(32) });
const read = { access: { minRole: 'READ_ONLY' as const } };

/** A group in Checkly's shape; variables masked by the one masking rule, as on /v1. */
export function groupJson(view: Pick<CheckGroupView, 'group' | 'createdAt' | 'updatedAt'>, access: Access) {
  return {
    ...maskGroupVariables(view.group, access),
    id: numericId(view.group.id),
    activated: true,
    muted: false,
    created_at: view.createdAt,
    updated_at: view.updatedAt,
  };
}

/** An alert channel as Checkly shows it: a numeric id, subscriptions naming numeric groups, secrets masked. */
export function channelJson(channels: ChannelService, view: AlertChannelView) {
  return checklyChannel(channels.present(view));
}

export function checklyChannel(presented: ReturnType<ChannelService['present']>) {
  return {
    ...presented,
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

  routes.get('/v1/check-groups', {
    config: read,
    schema: { querystring: z.object(pageQuery) },
    handler: async (request, reply) => {
      const groups = await deps.services.readModels.checkGroups(request.access!.accountId);
      return paginate(reply, groups, request.query.page, request.query.limit).map((view) =>
        groupJson(view, request.access!),
      );
    },
  });
  routes.get('/v1/check-groups/:id', {
    config: read,
    schema: { params: numericParams },
    handler: async (request) =>
      groupJson(await groupByNumericId(deps, request.access!, request.params.id), request.access!),
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
