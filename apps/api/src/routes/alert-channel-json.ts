import { z } from 'zod';
import { opsgeniePriorities, opsgenieRegions, subscriptionSchema, webhookMethods } from '#domain';

const keyValue = z.object({ key: z.string(), value: z.string() });
const masked = (what: string) =>
  z.string().nullable().describe(`"********" when ${what} is set: it is write-only (sealed at rest)`);

/** Each type's config as read back: secrets masked. */
const configs = {
  WEBHOOK: z.object({
    name: z.string(),
    url: z.string(),
    method: z.enum(webhookMethods),
    headers: z.array(keyValue),
    queryParameters: z.array(keyValue),
    template: z.string().nullable(),
    webhookSecret: masked('a secret'),
  }),
  EMAIL: z.object({ name: z.string(), address: z.string() }),
  SLACK: z.object({ name: z.string(), url: z.string(), channel: z.string().nullable() }),
  PAGERDUTY: z.object({ name: z.string(), serviceName: z.string().nullable(), serviceKey: masked('the routing key') }),
  OPSGENIE: z.object({
    name: z.string(),
    region: z.enum(opsgenieRegions),
    priority: z.enum(opsgeniePriorities),
    apiKey: masked('the API key'),
  }),
  MSTEAMS: z.object({ name: z.string(), url: z.string() }),
  DISCORD: z.object({ name: z.string(), url: z.string() }),
  TELEGRAM: z.object({ name: z.string(), chatId: z.string(), botToken: masked('the bot token') }),
};

const common = {
  id: z.string(),
  accountId: z.string(),
  problems: z
    .array(z.string())
    .describe('Why deliveries cannot succeed: a stored config that cannot work, or the last delivery refused'),
  sendFailure: z.boolean(),
  sendRecovery: z.boolean(),
  sendDegraded: z.boolean(),
  sslExpiry: z.boolean(),
  sslExpiryThreshold: z.number().int(),
  subscriptions: z.array(subscriptionSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
};

const variant = <T extends keyof typeof configs>(type: T) =>
  z.object({ ...common, type: z.literal(type), config: configs[type] });

/** An alert channel as the API shows it: one variant per type, chosen by `type`. */
export const channelJson = z
  .discriminatedUnion('type', [
    variant('WEBHOOK'),
    variant('EMAIL'),
    variant('SLACK'),
    variant('PAGERDUTY'),
    variant('OPSGENIE'),
    variant('MSTEAMS'),
    variant('DISCORD'),
    variant('TELEGRAM'),
  ])
  .meta({ id: 'AlertChannel', discriminator: { propertyName: 'type' } });
