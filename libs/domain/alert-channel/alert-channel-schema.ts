import { z } from 'zod';
import { idSchema, nameSchema, timestampSchema, utf8Bytes } from '../validation.ts';

export const alertChannelTypes = ['WEBHOOK'] as const;
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

export const alertChannelInputSchema = z.object({
  type: z
    .literal('WEBHOOK', {
      error: (issue) => `alert channel type ${JSON.stringify(issue.input)} is not supported; the only type is WEBHOOK`,
    })
    .default('WEBHOOK'),
  config: webhookConfigInputSchema,
  ...channelOptions,
});
export type AlertChannelInput = z.input<typeof alertChannelInputSchema>;

/** As stored: the secret only ever encrypted. */
export const webhookConfigSchema = z.object({
  ...webhookConfigCommon,
  webhookSecretEncrypted: z.string().min(1).nullable(),
});

export const alertChannelSchema = z.object({
  id: z.uuid(),
  accountId: idSchema,
  type: z.enum(alertChannelTypes),
  config: webhookConfigSchema,
  ...channelOptions,
});
export type AlertChannel = z.output<typeof alertChannelSchema>;

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
