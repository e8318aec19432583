import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { CheckGroupInput } from '#domain';
import { ValidationError } from '#core';
import { zodRoutes } from '#http';
import { assertion, keyValue, retryStrategy } from './check-body.ts';
import { groupByNumericId, groupJson } from './resources-read.ts';
import { applySubscriptions, resolveSubscriptions } from './subscriptions.ts';
import type { ChannelService } from '../services/channels.ts';
import type { ApiServices } from '../services/index.ts';

/** A group body as the SDK's Group type marshals it. */
export const groupBody = z.object({
  id: z.number().int().nullish(),
  name: z.string().max(2048),
  activated: z.boolean().nullish(),
  muted: z.boolean().nullish(),
  runParallel: z.boolean().nullish(),
  tags: z.array(z.string().max(64)).max(100).nullish(),
  locations: z.array(z.string().max(64)).max(50).nullish(),
  privateLocations: z.array(z.string().max(64)).max(50).nullish(),
  concurrency: z.number().int().nullish(),
  apiCheckDefaults: z
    .object({
      url: z.string().max(2048).nullish(),
      headers: z.array(keyValue).max(100).nullish(),
      queryParameters: z.array(keyValue).max(100).nullish(),
      assertions: z.array(assertion).max(50).nullish(),
      basicAuth: z.object({ username: z.string().max(1024), password: z.string().max(1024) }).nullish(),
    })
    .nullish(),
  environmentVariables: z
    .array(
      z.object({
        key: z.string().max(128),
        value: z.string().max(10_000),
        locked: z.boolean().nullish(),
        secret: z.boolean().nullish(),
      }),
    )
    .max(100)
    .nullish(),
  useGlobalAlertSettings: z.boolean().nullish(),
  alertSettings: z.unknown().nullish(),
  setupSnippetId: z.number().int().nullish(),
  tearDownSnippetId: z.number().int().nullish(),
  localSetupScript: z.string().nullish(),
  localTearDownScript: z.string().nullish(),
  alertChannelSubscriptions: z
    .array(z.object({ alertChannelId: z.number().int(), activated: z.boolean().nullish() }))
    .max(100)
    .nullish(),
  runtimeId: z.string().max(64).nullish(),
  retryStrategy: retryStrategy.nullish(),
  doubleCheck: z.boolean().nullish(),
  createdAt: z.string().max(64).nullish(),
  updatedAt: z.string().max(64).nullish(),
});
export type GroupBody = z.output<typeof groupBody>;

const isUnset = (value: unknown) =>
  value === undefined ||
  value === null ||
  value === '' ||
  value === false ||
  value === 0 ||
  (Array.isArray(value) && value.length === 0);

/** Vigil's group is a name, tags, a runtime, locations and variables; every other setting is named in one 400. */
export function toVigilGroup(body: GroupBody): CheckGroupInput {
  const refused: string[] = [];
  const unset = (path: string, value: unknown, why: string) => {
    if (!isUnset(value)) refused.push(`${path}: ${why}`);
  };
  if (body.activated === false) refused.push('activated: a Vigil group is always active; deactivate its checks');
  unset('muted', body.muted, 'a Vigil group cannot be muted; mute its checks');
  unset('runParallel', body.runParallel, 'Vigil runs locations one after another');
  if (body.concurrency != null && body.concurrency > 1)
    refused.push('concurrency: Vigil does not run groups as a unit');
  const defaults = body.apiCheckDefaults;
  if (defaults) {
    unset('apiCheckDefaults.url', defaults.url, 'Vigil has no group request defaults');
    unset('apiCheckDefaults.headers', defaults.headers, 'Vigil has no group request defaults');
    unset('apiCheckDefaults.queryParameters', defaults.queryParameters, 'Vigil has no group request defaults');
    unset('apiCheckDefaults.assertions', defaults.assertions, 'Vigil has no group request defaults');
    unset('apiCheckDefaults.basicAuth.username', defaults.basicAuth?.username, 'Vigil has no group request defaults');
  }
  if (body.useGlobalAlertSettings === false && body.alertSettings)
    refused.push("alertSettings: a Vigil group has no alert settings of its own; set each check's");
  unset('setupSnippetId', body.setupSnippetId, 'Vigil does not support snippets');
  unset('tearDownSnippetId', body.tearDownSnippetId, 'Vigil does not support snippets');
  unset('localSetupScript', body.localSetupScript, 'not supported by Vigil');
  unset('localTearDownScript', body.localTearDownScript, 'not supported by Vigil');
  (body.alertChannelSubscriptions ?? []).forEach((subscription, index) => {
    if (subscription.activated === false)
      refused.push(`alertChannelSubscriptions[${index}].activated: false is not kept; leave the channel out instead`);
  });
  unset('doubleCheck', body.doubleCheck, "use each check's retryStrategy");
  if (body.retryStrategy && body.retryStrategy.type !== 'NO_RETRIES')
    refused.push("retryStrategy: a Vigil group has none; set each check's");
  (body.environmentVariables ?? []).forEach((variable, index) =>
    unset(
      `environmentVariables[${index}].secret`,
      variable.secret,
      'group variables cannot be secret in Vigil; use a locked one or an account secret',
    ),
  );
  if (refused.length > 0) throw new ValidationError(refused.join('; '));
  return {
    name: body.name,
    tags: body.tags ?? [],
    runtimeId: body.runtimeId || null,
    // Private location slugs are kept among the locations, as a check's are (the service checks them).
    locations: [...(body.locations ?? []), ...(body.privateLocations ?? [])],
    environmentVariables: (body.environmentVariables ?? []).map((variable) => ({
      key: variable.key,
      value: variable.value,
      locked: variable.locked ?? false,
    })),
  };
}

const write = { access: { minRole: 'READ_WRITE' as const } };
const query = z.object({ autoAssignAlerts: z.enum(['true', 'false']).optional() });
const params = z.object({ id: z.string().max(32) });

/**
 * POST /v1/check-groups, PUT and DELETE /v1/check-groups/{id}: numeric ids over Vigil's groups.
 * The SDK's GroupV2 methods use the same routes under /v2 with the same body, so both are served.
 * A group's alertChannelSubscriptions are kept on the channels, as a check's are.
 */
export function groupWriteRoutes(app: FastifyInstance, services: ApiServices, channels: ChannelService): void {
  const routes = zodRoutes(app);
  const now = () => services.commands.now();
  for (const version of ['v1', 'v2']) {
    routes.post(`/${version}/check-groups`, {
      config: write,
      schema: { querystring: query, body: groupBody },
      handler: async (request, reply) => {
        const access = request.access!;
        const input = toVigilGroup(request.body);
        // Every channel is resolved before anything is written: an unknown one is a 400 alone.
        const resolved = await resolveSubscriptions(services, access, request.body.alertChannelSubscriptions);
        const group = await services.checks.createGroup(access, input);
        const subscriptions = await applySubscriptions(channels, access, { groupId: group.id }, resolved);
        const at = now();
        return reply
          .code(201)
          .send(
            groupJson(
              { group, createdAt: at, updatedAt: at },
              access,
              subscriptions,
              services.locations.publicLocations,
            ),
          );
      },
    });
    routes.put(`/${version}/check-groups/:id`, {
      config: write,
      schema: { params, querystring: query, body: groupBody },
      handler: async (request) => {
        const access = request.access!;
        const input = toVigilGroup(request.body);
        const existing = await groupByNumericId({ services }, access, request.params.id);
        const resolved = await resolveSubscriptions(services, access, request.body.alertChannelSubscriptions);
        const group = await services.checks.updateGroup(access, existing.group.id, input);
        const subscriptions = await applySubscriptions(channels, access, { groupId: group.id }, resolved);
        return groupJson(
          { group, createdAt: existing.createdAt, updatedAt: now() },
          access,
          subscriptions,
          services.locations.publicLocations,
        );
      },
    });
    routes.delete(`/${version}/check-groups/:id`, {
      config: write,
      schema: { params },
      handler: async (request, reply) => {
        const access = request.access!;
        const existing = await groupByNumericId({ services }, access, request.params.id);
        await services.checks.deleteGroup(access, existing.group.id);
        return reply.code(204).send();
      },
    });
  }
}
