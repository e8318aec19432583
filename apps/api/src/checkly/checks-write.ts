import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NotFoundError, ValidationError } from '#core';
import type { ScriptFile } from '#domain';
import { zodRoutes } from '#http';
import type { Access } from '../access.ts';
import type { ChannelService } from '../services/channels.ts';
import type { ApiServices } from '../services/index.ts';
import { applySubscriptions, resolveSubscriptions } from './subscriptions.ts';
import { checklyCheckBody, checkTypeByPath, toVigilCheck, type ChecklyCheckBody } from './check-input.ts';
import { checkJson } from './checks-read.ts';
import { groupByNumericId } from './resources-read.ts';
import { suiteFiles } from './project-bundle.ts';

const write = { access: { minRole: 'READ_WRITE' as const } };
// The SDK adds ?autoAssignAlerts=false to every check write; Vigil assigns no alerts on its own either way.
const writeQuery = z.object({ autoAssignAlerts: z.enum(['true', 'false']).optional() });

function typeOf(segment: string) {
  const type = checkTypeByPath[segment.toLowerCase()];
  if (!type) throw new NotFoundError(`Vigil does not support ${segment} checks`);
  return type;
}

/** Check writes in Checkly's shapes: POST /v1/checks/{type}, PUT /v1/checks/{type}/{id}, and the generic forms. */
export function checkWriteRoutes(app: FastifyInstance, services: ApiServices, channels: ChannelService): void {
  const routes = zodRoutes(app);

  const groupIdOf = async (access: Access, body: ChecklyCheckBody): Promise<string | null> => {
    if (body.groupId === null || body.groupId === undefined || body.groupId === 0) return null;
    try {
      return (await groupByNumericId({ services }, access, body.groupId)).group.id;
    } catch (error) {
      if (error instanceof NotFoundError)
        throw new ValidationError(`groupId: no check group ${body.groupId} in this account`);
      throw error;
    }
  };
  /**
   * A Playwright suite's files, from the bundle its codeBundlePath names (or the check's own files
   * when it names their key). What the read cannot give back is refused, never dropped.
   */
  const suiteOf = async (access: Access, body: ChecklyCheckBody, current?: ScriptFile[]) => {
    if (!body.codeBundlePath) return {};
    const why: string[] = [];
    if (body.script) why.push('script: a Playwright suite runs its code bundle; send one or the other');
    if (body.playwrightVersion)
      why.push("playwrightVersion: Vigil runs the runtime's Playwright; leave it unset and choose a runtimeId");
    if (body.cacheHash) why.push('cacheHash: Vigil installs no packages, so keeps no install cache');
    if (body.engineVersion) why.push("engineVersion: Vigil runs the runtime's Playwright");
    if (why.length > 0) throw new ValidationError(why.join('; '));
    const { files } = await suiteFiles(services.stateStore, access, body, current);
    return { files };
  };
  const now = () => services.commands.now();
  const present = (check: Parameters<typeof services.checks.present>[0]) => services.checks.present(check);

  const create = async (access: Access, body: ChecklyCheckBody, segment: string) => {
    const type = typeOf(segment);
    const input = toVigilCheck(body, type, await groupIdOf(access, body));
    Object.assign(input, await suiteOf(access, body));
    // Every channel is resolved before anything is written, so an unknown one refuses the request whole.
    const resolved = await resolveSubscriptions(services, access, body.alertChannelSubscriptions);
    const check = await services.checks.createCheck(access, input);
    const subscriptions = await applySubscriptions(channels, access, check.id, resolved);
    const at = now();
    return {
      ...checkJson({ check, createdAt: at, updatedAt: at }, present, services.locations.publicLocations),
      alertChannelSubscriptions: subscriptions,
    };
  };
  const update = async (access: Access, id: string, body: ChecklyCheckBody, segment: string | null) => {
    const existing = await services.checks.getCheck(access, id);
    const type = segment === null ? existing.check.checkType : typeOf(segment);
    if (type !== existing.check.checkType)
      throw new ValidationError(`checkType: check ${id} is a ${existing.check.checkType} check, not ${type}`);
    const input = toVigilCheck(body, type, await groupIdOf(access, body));
    Object.assign(input, await suiteOf(access, body, (existing.check as { files?: ScriptFile[] }).files));
    const resolved = await resolveSubscriptions(services, access, body.alertChannelSubscriptions);
    const check = await services.checks.updateCheck(access, id, input);
    const subscriptions = await applySubscriptions(channels, access, check.id, resolved);
    return {
      ...checkJson(
        { check, createdAt: existing.createdAt, updatedAt: now() },
        present,
        services.locations.publicLocations,
      ),
      alertChannelSubscriptions: subscriptions,
    };
  };

  routes.post('/v1/checks/:type', {
    config: write,
    schema: { params: z.object({ type: z.string().max(32) }), querystring: writeQuery, body: checklyCheckBody },
    handler: async (request, reply) =>
      reply.code(201).send(await create(request.access!, request.body, request.params.type)),
  });
  routes.post('/v1/checks', {
    config: write,
    schema: { querystring: writeQuery, body: checklyCheckBody },
    handler: async (request, reply) => {
      const type = request.body.checkType;
      if (!type) throw new ValidationError('checkType: required on POST /v1/checks');
      const segment = Object.entries(checkTypeByPath).find(([, value]) => value === type)?.[0];
      if (!segment) throw new ValidationError(`checkType: Vigil does not support ${type} checks`);
      return reply.code(201).send(await create(request.access!, request.body, segment));
    },
  });
  routes.put('/v1/checks/:type/:id', {
    config: write,
    schema: {
      params: z.object({ type: z.string().max(32), id: z.string().max(64) }),
      querystring: writeQuery,
      body: checklyCheckBody,
    },
    handler: async (request) => update(request.access!, request.params.id, request.body, request.params.type),
  });
  routes.put('/v1/checks/:id', {
    config: write,
    schema: { params: z.object({ id: z.string().max(64) }), querystring: writeQuery, body: checklyCheckBody },
    handler: async (request) => update(request.access!, request.params.id, request.body, null),
  });
}
