import { z } from 'zod';
import { idSchema, nameSchema, timestampSchema, utf8Bytes } from '../validation.ts';
import {
  discordConfigSchema,
  emailConfigSchema,
  msTeamsConfigSchema,
  opsgenieConfigInputSchema,
  opsgenieConfigSchema,
  pagerDutyConfigInputSchema,
  pagerDutyConfigSchema,
  slackConfigSchema,
  telegramConfigInputSchema,
  telegramConfigSchema,
} from './channel-configs.ts';

export * from './channel-configs.ts';

export const alertChannelTypes = [
  'WEBHOOK',
  'EMAIL',
  'SLACK',
  'PAGERDUTY',
  'OPSGENIE',
  'MSTEAMS',
  'DISCORD',
  'TELEGRAM',
] as const;
export type AlertChannelType = (typeof alertChannelTypes)[number];
export const webhookMethods = ['GET', 'POST', 'PUT', 'PATCH', 'HEAD', 'DELETE'] as const;
export const WEBHOOK_TEMPLATE_MAX_BYTES = 64 * 1024;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

// A URL may itself be a template ("{{BASE_URL}}/hook"); only a literal one can be checked here.
// The regex is what OpenAPI documents, and the API applies it to the value as sent (no trimming),
// so a value the document rules out is always refused; the refine then parses literal URLs.
const webhookUrlMessage = 'must be an http or https URL, or a template';
const webhookUrlSchema = z
  .string()
  .min(1)
  .max(2048)
  .regex(new RegExp('^([Hh][Tt][Tt][Pp][Ss]?://[\\s\\S]*|[\\s\\S]*[{][{][\\s\\S]*)$'), webhookUrlMessage)
  .refine((url) => url.includes('{{') || isHttpUrl(url), webhookUrlMessage);

const keyValueSchema = z.object({ key: z.string().trim().min(1).max(255), value: z.string().max(8192) });

// Handlebars parse errors are reported by the application, which owns the template engine.
const templateSchema = z
  .string()
  .refine(
    (template) => utf8Bytes(template) <= WEBHOOK_TEMPLATE_MAX_BYTES,
    `must be at most ${WEBHOOK_TEMPLATE_MAX_BYTES} bytes (64 KiB)`,
  );

const webhookConfigCommon = {
  name: nameSchema,
  url: webhookUrlSchema,
  method: z.enum(webhookMethods).default('POST'),
  headers: z.array(keyValueSchema).max(50).default([]),
  queryParameters: z.array(keyValueSchema).max(50).default([]),
  template: templateSchema.nullable().default(null),
};

/**
 * What POST and PUT accept. `webhookSecret` is plaintext: the application encrypts it and passes
 * the ciphertext beside the input. Left out on an update, the stored secret stays; null clears it.
 */
export const webhookConfigInputSchema = z.object({
  ...webhookConfigCommon,
  webhookSecret: z.string().min(1).max(1024).nullable().optional(),
});

const channelOptions = {
  sendFailure: z.boolean().default(true),
  sendRecovery: z.boolean().default(true),
  sendDegraded: z.boolean().default(false),
  sslExpiry: z.boolean().default(false),
  sslExpiryThreshold: z.number().int().min(1).max(30).default(30),
};

const typeError = (issue: { input?: unknown }) => {
  const type = (issue.input as { type?: unknown } | undefined)?.type;
  return `alert channel type ${JSON.stringify(type)} is not supported; the types are ${alertChannelTypes.join(', ')}`;
};
const unionOptions = {
  error: (issue: { code?: string; input?: unknown }) => (issue.code === 'invalid_union' ? typeError(issue) : undefined),
};
// OpenAPI readers pick the variant by `type`.
const discriminator = { discriminator: { propertyName: 'type' } };

/** What POST and PUT accept: one variant per type. A body without `type` is a webhook, as before. */
export const alertChannelInputSchema = z
  .discriminatedUnion(
    'type',
    [
      z.object({ type: z.literal('WEBHOOK').default('WEBHOOK'), config: webhookConfigInputSchema, ...channelOptions }),
      z.object({ type: z.literal('EMAIL'), config: emailConfigSchema, ...channelOptions }),
      z.object({ type: z.literal('SLACK'), config: slackConfigSchema, ...channelOptions }),
      z.object({ type: z.literal('PAGERDUTY'), config: pagerDutyConfigInputSchema, ...channelOptions }),
      z.object({ type: z.literal('OPSGENIE'), config: opsgenieConfigInputSchema, ...channelOptions }),
      z.object({ type: z.literal('MSTEAMS'), config: msTeamsConfigSchema, ...channelOptions }),
      z.object({ type: z.literal('DISCORD'), config: discordConfigSchema, ...channelOptions }),
      z.object({ type: z.literal('TELEGRAM'), config: telegramConfigInputSchema, ...channelOptions }),
    ],
    unionOptions,
  )
  .meta(discriminator);
export type AlertChannelInput = z.input<typeof alertChannelInputSchema>;
export type ParsedAlertChannelInput = z.output<typeof alertChannelInputSchema>;

/** As stored: the secret only ever encrypted. */
export const webhookConfigSchema = z.object({
  ...webhookConfigCommon,
  webhookSecretEncrypted: z.string().min(1).nullable(),
});

const stored = { id: z.uuid(), accountId: idSchema, ...channelOptions };
export const alertChannelSchema = z.discriminatedUnion('type', [
  z.object({ ...stored, type: z.literal('WEBHOOK'), config: webhookConfigSchema }),
  z.object({ ...stored, type: z.literal('EMAIL'), config: emailConfigSchema }),
  z.object({ ...stored, type: z.literal('SLACK'), config: slackConfigSchema }),
  z.object({ ...stored, type: z.literal('PAGERDUTY'), config: pagerDutyConfigSchema }),
  z.object({ ...stored, type: z.literal('OPSGENIE'), config: opsgenieConfigSchema }),
  z.object({ ...stored, type: z.literal('MSTEAMS'), config: msTeamsConfigSchema }),
  z.object({ ...stored, type: z.literal('DISCORD'), config: discordConfigSchema }),
  z.object({ ...stored, type: z.literal('TELEGRAM'), config: telegramConfigSchema }),
]);
export type AlertChannel = z.output<typeof alertChannelSchema>;
export type WebhookChannel = Extract<AlertChannel, { type: 'WEBHOOK' }>;
export type ChannelOf<T extends AlertChannelType> = Extract<AlertChannel, { type: T }>;

/** A channel follows either one check or one group. */
export const subscriptionSchema = z.object({
  checkId: z.uuid().nullable(),
  groupId: z.uuid().nullable(),
  activated: z.boolean(),
});
export type Subscription = z.output<typeof subscriptionSchema>;

export const alertChannelEventData = {
  AlertChannelCreated: z.object({ channel: alertChannelSchema, at: timestampSchema }),
  AlertChannelUpdated: z.object({ channel: alertChannelSchema, at: timestampSchema }),
  AlertChannelDeleted: z.object({ at: timestampSchema }),
  SubscriptionSet: subscriptionSchema.extend({ at: timestampSchema }),
};
