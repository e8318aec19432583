import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ValidationError } from '#core';
import type { AlertChannelInput } from '#domain';
import { zodRoutes } from '#http';
import type { ChannelService } from '../services/channels.ts';
import type { ApiServices } from '../services/index.ts';
import { keyValue } from './check-body.ts';
import { channelByNumericId, checklyChannel } from './resources-read.ts';

/** What the SDK's payloadFromAlertChannel sends: id, type, the type's config, and the options it set. */
export const channelBody = z.object({
  id: z.number().int().nullish(),
  type: z.string().max(32),
  config: z.object({
    // EMAIL
    address: z.string().max(254).nullish(),
    // SLACK (url, channel); WEBHOOK (name, url, webhookType, method, template, webhookSecret, headers, queryParameters)
    url: z.string().max(2048).nullish(),
    channel: z.string().max(255).nullish(),
    name: z.string().max(255).nullish(),
    webhookType: z.string().max(64).nullish(),
    method: z.string().max(16).nullish(),
    template: z.string().max(65_536).nullish(),
    webhookSecret: z.string().max(1024).nullish(),
    headers: z.array(keyValue).max(50).nullish(),
    queryParameters: z.array(keyValue).max(50).nullish(),
    // OPSGENIE
    apiKey: z.string().max(1024).nullish(),
    region: z.string().max(8).nullish(),
    priority: z.string().max(8).nullish(),
    // PAGERDUTY
    account: z.string().max(255).nullish(),
    serviceKey: z.string().max(1024).nullish(),
    serviceName: z.string().max(255).nullish(),
  }),
  sendRecovery: z.boolean().nullish(),
  sendFailure: z.boolean().nullish(),
  sendDegraded: z.boolean().nullish(),
  sslExpiry: z.boolean().nullish(),
  sslExpiryThreshold: z.number().int().nullish(),
  autoSubscribe: z.boolean().nullish(),
  created_at: z.string().max(64).nullish(),
  updated_at: z.string().max(64).nullish(),
});
type ChannelBody = z.output<typeof channelBody>;

const webhookTypes: Record<string, 'MSTEAMS' | 'DISCORD'> = { WEBHOOK_MSTEAMS: 'MSTEAMS', WEBHOOK_DISCORD: 'DISCORD' };

/** Checkly's channel types onto Vigil's: same names where they exist, the Teams and Discord webhooks as their own types. */
export function toVigilChannel(body: ChannelBody): AlertChannelInput {
  const c = body.config;
  const refused: string[] = [];
  const options = {
    ...(body.sendFailure != null ? { sendFailure: body.sendFailure } : {}),
    ...(body.sendRecovery != null ? { sendRecovery: body.sendRecovery } : {}),
    ...(body.sendDegraded != null ? { sendDegraded: body.sendDegraded } : {}),
    ...(body.sslExpiry != null ? { sslExpiry: body.sslExpiry } : {}),
    ...(body.sslExpiryThreshold ? { sslExpiryThreshold: body.sslExpiryThreshold } : {}),
  };
  if (body.autoSubscribe)
    refused.push('autoSubscribe: subscribe checks through PUT /v1/alert-channels/{id}/subscriptions');
  const extra = (type: string, allowed: string[]) => {
    for (const [field, value] of Object.entries(c))
      if (
        !allowed.includes(field) &&
        value !== null &&
        value !== undefined &&
        value !== '' &&
        !(Array.isArray(value) && value.length === 0)
      )
        refused.push(`config.${field}: not a field of ${type} channels in Vigil`);
  };
  let input: AlertChannelInput | null = null;
  switch (body.type) {
    case 'EMAIL':
      extra('EMAIL', ['address', 'name']);
      input = { type: 'EMAIL', config: { name: c.name || c.address || '', address: c.address ?? '' }, ...options };
      break;
    case 'SLACK':
      extra('SLACK', ['url', 'channel', 'name']);
      input = {
        type: 'SLACK',
        config: { name: c.name || c.channel || 'Slack', url: c.url ?? '', channel: c.channel || null },
        ...options,
      };
      break;
    case 'OPSGENIE':
      extra('OPSGENIE', ['name', 'apiKey', 'region', 'priority']);
      input = {
        type: 'OPSGENIE',
        config: {
          name: c.name || 'Opsgenie',
          apiKey: c.apiKey ?? '',
          ...(c.region ? { region: c.region } : {}),
          ...(c.priority ? { priority: c.priority } : {}),
        },
        ...options,
      } as AlertChannelInput;
      break;
    case 'PAGERDUTY':
      extra('PAGERDUTY', ['serviceKey', 'serviceName', 'name']);
      input = {
        type: 'PAGERDUTY',
        config: {
          name: c.name || c.serviceName || 'PagerDuty',
          serviceKey: c.serviceKey ?? '',
          serviceName: c.serviceName || null,
        },
        ...options,
      };
      break;
    case 'WEBHOOK': {
      const special = c.webhookType ? webhookTypes[c.webhookType] : undefined;
      if (special) {
        // Teams and Discord webhooks are always POSTed; the SDK sends that method, and reads it back.
        if (c.method && c.method.toUpperCase() !== 'POST')
          refused.push(`config.method: ${special} webhooks are always POST in Vigil`);
        extra(special, ['name', 'url', 'webhookType', 'method']);
        input = { type: special, config: { name: c.name || special, url: c.url ?? '' }, ...options };
        break;
      }
      if (c.webhookType && c.webhookType !== 'WEBHOOK')
        refused.push(
          `config.webhookType: ${c.webhookType} is not supported; use WEBHOOK, WEBHOOK_MSTEAMS or WEBHOOK_DISCORD`,
        );
      extra('WEBHOOK', [
        'name',
        'url',
        'webhookType',
        'method',
        'template',
        'webhookSecret',
        'headers',
        'queryParameters',
      ]);
      input = {
        type: 'WEBHOOK',
        config: {
          name: c.name || 'Webhook',
          url: c.url ?? '',
          ...(c.method ? { method: c.method } : {}),
          headers: (c.headers ?? []).map(({ key, value }) => ({ key, value })),
          queryParameters: (c.queryParameters ?? []).map(({ key, value }) => ({ key, value })),
          template: c.template || null,
          ...(c.webhookSecret ? { webhookSecret: c.webhookSecret } : {}),
        },
        ...options,
      } as AlertChannelInput;
      (c.headers ?? []).forEach(
        (h, i) => h.locked && refused.push(`config.headers[${i}].locked: Vigil does not lock headers`),
      );
      break;
    }
    default:
      refused.push(
        `type: Vigil does not support ${body.type} alert channels; it has EMAIL, SLACK, WEBHOOK (and WEBHOOK_MSTEAMS, WEBHOOK_DISCORD), OPSGENIE and PAGERDUTY here`,
      );
  }
  if (refused.length > 0 || !input) throw new ValidationError(refused.join('; '));
  return input;
}

const write = { access: { minRole: 'READ_WRITE' as const } };
const params = z.object({ id: z.string().max(32) });

/** POST /v1/alert-channels, PUT and DELETE /v1/alert-channels/{numeric id}, through Vigil's channel service. */
export function channelWriteRoutes(app: FastifyInstance, services: ApiServices, channels: ChannelService): void {
  const routes = zodRoutes(app);
  routes.post('/v1/alert-channels', {
    config: write,
    schema: { body: channelBody },
    handler: async (request, reply) =>
      reply.code(201).send(checklyChannel(await channels.create(request.access!, toVigilChannel(request.body)))),
  });
  routes.put('/v1/alert-channels/:id', {
    config: write,
    schema: { params, body: channelBody },
    handler: async (request) => {
      const access = request.access!;
      const existing = await channelByNumericId({ services }, access, request.params.id);
      return checklyChannel(await channels.update(access, existing.channel.id, toVigilChannel(request.body)));
    },
  });
  routes.delete('/v1/alert-channels/:id', {
    config: write,
    schema: { params },
    handler: async (request, reply) => {
      const access = request.access!;
      const existing = await channelByNumericId({ services }, access, request.params.id);
      await channels.delete(access, existing.channel.id);
      return reply.code(204).send();
    },
  });
}
