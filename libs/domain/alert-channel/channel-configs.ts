import { z } from 'zod';
import { emailAddressSchema, nameSchema } from '../validation.ts';

/**
 * The configs of the alert channel types other than WEBHOOK, with Checkly's field names (users'
 * project files and outside tools depend on them). Each type's secret (PagerDuty routing key,
 * Opsgenie API key, Telegram bot token) is plaintext only on input: the application seals it and
 * the stored config holds `<field>Encrypted`. Reads show it as SECRET_MASK.
 */
export const SECRET_MASK = '********';

/** What a PUT sends back for a secret it does not change (read as `********`): keep the stored one. */
const maskLiteral = z.literal(SECRET_MASK);
const secretInput = (schema: z.ZodString) => z.union([maskLiteral, schema]).optional();

function isUrl(value: string, protocols: string[]): boolean {
  try {
    return protocols.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

/**
 * The hosted services' webhook URLs. https is what they require; whether plain http is accepted
 * (a local relay, tests) is the application's call, made with the private-targets switch.
 */
const serviceUrlSchema = z
  .string()
  .trim()
  .min(1)
  .max(2048)
  .refine((url) => isUrl(url, ['https:', 'http:']), 'must be an https URL');

export const emailConfigSchema = z.object({
  name: nameSchema,
  address: emailAddressSchema('must be an email address such as oncall@example.com'),
});

export const slackConfigSchema = z.object({
  name: nameSchema,
  url: serviceUrlSchema,
  channel: z
    .string()
    .trim()
    .regex(/^[#@]?[\p{L}\p{N}._-]{1,80}$/u, 'must be a channel name such as #alerts')
    .nullable()
    .default(null),
});

const pagerDutyKey = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9]{32}$/, 'must be a 32-character Events API v2 integration (routing) key');
const pagerDutyCommon = {
  name: nameSchema,
  serviceName: z.string().trim().min(1).max(255).nullable().default(null),
};
export const pagerDutyConfigInputSchema = z.object({ ...pagerDutyCommon, serviceKey: secretInput(pagerDutyKey) });
export const pagerDutyConfigSchema = z.object({ ...pagerDutyCommon, serviceKeyEncrypted: z.string().min(1) });

export const opsgenieRegions = ['US', 'EU'] as const;
export const opsgeniePriorities = ['P1', 'P2', 'P3', 'P4', 'P5'] as const;
const opsgenieKey = z
  .string()
  .trim()
  .regex(
    /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
    'must be an Opsgenie API key (a UUID such as 0e2b3c4d-5f60-4a7b-8c9d-0e1f2a3b4c5d)',
  );
const opsgenieCommon = {
  name: nameSchema,
  region: z.enum(opsgenieRegions, { error: 'must be US or EU' }).default('US'),
  priority: z.enum(opsgeniePriorities, { error: 'must be one of P1, P2, P3, P4, P5' }).default('P3'),
};
export const opsgenieConfigInputSchema = z.object({ ...opsgenieCommon, apiKey: secretInput(opsgenieKey) });
export const opsgenieConfigSchema = z.object({ ...opsgenieCommon, apiKeyEncrypted: z.string().min(1) });

export const msTeamsConfigSchema = z.object({ name: nameSchema, url: serviceUrlSchema });
export const discordConfigSchema = z.object({ name: nameSchema, url: serviceUrlSchema });

const telegramToken = z
  .string()
  .trim()
  .regex(/^\d{3,20}:[A-Za-z0-9_-]{30,64}$/, 'must be a bot token as BotFather gives it (123456:ABC…)');
const telegramCommon = {
  name: nameSchema,
  chatId: z
    .string()
    .trim()
    .regex(/^-?\d{1,20}$|^@[A-Za-z][A-Za-z0-9_]{3,31}$/, 'must be a numeric chat id or an @channel name'),
};
export const telegramConfigInputSchema = z.object({ ...telegramCommon, botToken: secretInput(telegramToken) });
export const telegramConfigSchema = z.object({ ...telegramCommon, botTokenEncrypted: z.string().min(1) });

/** The config field that holds each type's secret, when it has one. */
export const secretFieldOf = {
  WEBHOOK: 'webhookSecret',
  EMAIL: null,
  SLACK: null,
  PAGERDUTY: 'serviceKey',
  OPSGENIE: 'apiKey',
  MSTEAMS: null,
  DISCORD: null,
  TELEGRAM: 'botToken',
} as const;
