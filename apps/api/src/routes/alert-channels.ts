import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NotFoundError } from '#core';
import { alertChannelInputSchema, webhookConfigInputSchema } from '#domain';
import { errorResponses, zodRoutes } from '#http';
import {
  deliveryLogEntrySchema,
  maskHeaders,
  sampleAlert,
  sampleContext,
  templateVariablesFor,
  type DeliveryStore,
  type Dispatcher,
} from '#notify';
import { alertTypes, prepareRequest } from '#webhooks';
import { checkTemplates, templateSandbox, type ChannelService } from '../services/channels.ts';
import type { ApiServices } from '../services/index.ts';
import { channelJson } from './alert-channel-json.ts';
import { idParams, pageQuerySchema } from './schemas.ts';

export interface ChannelRouteDeps {
  services: ApiServices;
  channels: ChannelService;
  dispatcher: Dispatcher;
  deliveries: DeliveryStore;
  userAgent: string;
  region: string;
  publicUrl: string;
}

const requestSchema = z.object({ url: z.string(), headers: z.record(z.string(), z.string()), body: z.string() });
export function alertChannelRoutes(app: FastifyInstance, deps: ChannelRouteDeps): void {
  const routes = zodRoutes(app);
  const tags = ['alert channels'];
  const read = { access: { minRole: 'READ_ONLY' as const } };
  const write = { access: { minRole: 'READ_WRITE' as const } };
  // Writes only through the command runner: ?dryRun=true runs them in full and appends nothing.
  const dryWrite = { ...write, dryRun: true };
  const { channels } = deps;
  const lastAttempt = async (channelId: string) =>
    (await deps.deliveries.attempts(channelId, { limit: 1, page: 1 })).items[0];

  routes.post('/v1/alert-channels', {
    config: dryWrite,
    schema: {
      tags,
      summary: 'Create an alert channel of any type; it is checked on save, and its secret is write-only',
      body: alertChannelInputSchema,
      response: { 201: channelJson, ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request, reply) => reply.code(201).send(await channels.create(request.access!, request.body)),
  });
  routes.get('/v1/alert-channels', {
    config: read,
    schema: {
      tags,
      summary: 'Alert channels; X-Total-Count gives the total',
      querystring: pageQuerySchema,
      response: { 200: z.array(channelJson), ...errorResponses(400, 401, 403, 429) },
    },
    handler: async (request, reply) => {
      const { items, total } = await channels.list(request.access!, request.query, lastAttempt);
      void reply.header('x-total-count', String(total));
      return items;
    },
  });
  routes.get('/v1/alert-channels/:id', {
    config: read,
    schema: {
      tags,
      summary: 'One alert channel (secret masked)',
      params: idParams,
      response: { 200: channelJson, ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request) =>
      channels.present(await channels.get(request.access!, request.params.id), await lastAttempt(request.params.id)),
  });
  routes.put('/v1/alert-channels/:id', {
    config: dryWrite,
    schema: {
      tags,
      summary:
        'Replace an alert channel; a secret left out (or sent back as "********") keeps the stored one, null clears a webhookSecret',
      params: idParams,
      body: alertChannelInputSchema,
      response: { 200: channelJson, ...errorResponses(400, 401, 403, 404, 409, 429) },
    },
    handler: async (request) => channels.update(request.access!, request.params.id, request.body),
  });
  routes.delete('/v1/alert-channels/:id', {
    config: dryWrite,
    schema: {
      tags,
      summary: 'Delete an alert channel',
      params: idParams,
      response: { 204: z.null(), ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request, reply) => {
      await channels.delete(request.access!, request.params.id);
      return reply.code(204).send(null);
    },
  });
  routes.put('/v1/alert-channels/:id/subscriptions', {
    config: dryWrite,
    schema: {
      tags,
      summary: 'Subscribe the channel to a check or a group, or unsubscribe (activated: false)',
      params: idParams,
      body: z.object({
        checkId: z.uuid().nullable().optional(),
        groupId: z.uuid().nullable().optional(),
        activated: z.boolean().default(true),
      }),
      response: { 200: channelJson, ...errorResponses(400, 401, 403, 404, 429) },
    },
    handler: async (request) => channels.subscribe(request.access!, request.params.id, request.body),
  });

  routes.post('/v1/alert-channels/preview', {
    config: write,
    schema: {
      tags,
      summary: 'Render a channel config for an alert type without sending',
      body: z.object({
        config: webhookConfigInputSchema,
        alertType: z.enum(alertTypes).default('ALERT_FAILURE'),
        checkId: z.uuid().optional(),
        /** A saved channel whose signing secret signs the preview when config carries none (GET never shows it). */
        channelId: z.uuid().optional(),
      }),
      response: {
        200: z.object({
          url: z.string(),
          method: z.string(),
          headers: z.record(z.string(), z.string()),
          body: z.string(),
          warnings: z.array(z.string()),
        }),
        ...errorResponses(400, 401, 403, 404, 429),
      },
    },
    handler: async (request) => {
      const access = request.access!;
      const { config, alertType, checkId, channelId } = request.body;
      await checkTemplates({ type: 'WEBHOOK', config });
      if (checkId && (await deps.services.readModels.check(checkId))?.accountId !== access.accountId)
        throw new NotFoundError(`Check ${checkId} not found`);
      const context = await sampleContext(deps.services.readModels, access.accountId, null, checkId);
      const event = sampleAlert(access.accountId, context, alertType);
      // The dispatcher's variables as this caller may read them (locked values masked as in GET
      // /v1/variables/{key}); renderTemplates warns about secrets itself.
      const variables = await templateVariablesFor(deps.services.readModels, event, context, deps.publicUrl, access);
      // Rendered on the sandbox's thread, with a timeout: no template can stall other requests.
      const rendered = await templateSandbox().render(config, variables, { region: deps.region });
      const prepared = prepareRequest(rendered, {
        timeoutMs: 0,
        allowPrivate: false,
        userAgent: deps.userAgent,
        deliveryId: randomUUID(),
        secret: config.webhookSecret ?? (channelId ? await channels.signingSecret(access, channelId) : null),
      });
      return {
        url: rendered.url,
        method: rendered.method,
        headers: maskHeaders(prepared.headers),
        body: prepared.body,
        warnings: rendered.warnings,
      };
    },
  });

  routes.post('/v1/alert-channels/:id/test', {
    config: write,
    schema: {
      tags,
      summary: 'Send a sample ALERT_FAILURE now (any channel type) and report what the receiver answered',
      params: idParams,
      response: {
        200: z.object({
          outcome: z.string(),
          statusCode: z.number().nullable(),
          durationMs: z.number(),
          responseBody: z.string(),
          error: z.string().nullable(),
          request: requestSchema,
        }),
        ...errorResponses(401, 403, 404, 429),
      },
    },
    handler: async (request) => {
      const access = request.access!;
      const view = await channels.get(access, request.params.id);
      const context = await sampleContext(deps.services.readModels, access.accountId, view);
      const alert = sampleAlert(access.accountId, context, 'ALERT_FAILURE');
      const now = Date.now();
      const delivery = {
        id: randomUUID(),
        channelId: view.channel.id,
        accountId: access.accountId,
        checkId: context.check.id,
        alertType: 'ALERT_FAILURE',
        alert,
        test: true,
        attempts: 0,
        status: 'pending' as const,
        nextAttemptAt: null,
        createdAt: now,
        updatedAt: now,
        lastError: null,
      };
      // A test send is seen by the caller (its request is echoed back), so it renders what they may read.
      const variables = await templateVariablesFor(deps.services.readModels, alert, context, deps.publicUrl, access);
      // A trial render on the sandbox's thread first: a template that runs too long is refused there.
      if (view.channel.type === 'WEBHOOK')
        await templateSandbox().render(view.channel.config, variables, { region: deps.region });
      const outcome = await deps.dispatcher.attempt(delivery, view, context, variables);
      return {
        outcome: outcome.result.outcome,
        statusCode: outcome.result.statusCode ?? null,
        durationMs: outcome.result.durationMs,
        responseBody: outcome.result.responseBody,
        error: outcome.result.error ?? null,
        request: {
          url: outcome.request.url,
          headers: maskHeaders(outcome.result.requestHeaders),
          body: outcome.request.body,
        },
      };
    },
  });

  routes.get('/v1/alert-channels/:id/deliveries', {
    config: read,
    schema: {
      tags,
      summary: 'Every delivery attempt of this channel, newest first',
      description:
        'Each attempt says whether another attempt of the same delivery follows it (`willRetry`) and when it is or was due (`nextAttemptAt`).',
      params: idParams,
      querystring: pageQuerySchema.extend({ outcome: z.enum(['delivered', 'failed', 'refused']).optional() }),
      response: { 200: z.array(deliveryLogEntrySchema), ...errorResponses(400, 401, 403, 404, 429) },
    },
    handler: async (request, reply) => {
      await channels.get(request.access!, request.params.id);
      const { items, total } = await deps.deliveries.attempts(request.params.id, request.query, request.query.outcome);
      void reply.header('x-total-count', String(total));
      return items;
    },
  });

  routes.post('/v1/alert-channels/:id/deliveries/:deliveryId/retry', {
    config: write,
    schema: {
      tags,
      summary: 'Replay a delivery: one more attempt now, with the same delivery id',
      params: z.object({ id: z.string().max(64), deliveryId: z.string().max(64) }),
      response: { 202: z.object({ id: z.string(), status: z.string() }), ...errorResponses(401, 403, 404, 429) },
    },
    handler: async (request, reply) => {
      await channels.get(request.access!, request.params.id);
      const delivery = await deps.deliveries.get(request.params.deliveryId);
      if (!delivery || delivery.channelId !== request.params.id || delivery.test)
        throw new NotFoundError(`Delivery ${request.params.deliveryId} not found`);
      await deps.deliveries.requeue(delivery, Date.now());
      return reply.code(202).send({ id: delivery.id, status: 'pending' });
    },
  });
}
