import { z } from 'zod';
import { alertSettingsSchema } from '../account/alert-settings.ts';
import { nameSchema, parseInput } from '../validation.ts';

export const checkTypes = ['API', 'BROWSER', 'HEARTBEAT', 'MULTI_STEP', 'TCP', 'PLAYWRIGHT', 'URL', 'DNS'] as const;
export type CheckType = (typeof checkTypes)[number];
export const checkTypeSchema = z.enum(checkTypes);

/** Run frequencies in minutes. */
export const checkFrequencies = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440] as const;
export type CheckFrequency = (typeof checkFrequencies)[number];

export const RESPONSE_TIME_CAP_MS = 45_000;
export const DNS_RESPONSE_TIME_CAP_MS = 5_000;

/** Per type: [degradedResponseTime, maxResponseTime] in ms when the request leaves them out. */
export const responseTimeDefaults: Readonly<Record<CheckType, { degraded: number; max: number }>> = {
  API: { degraded: 5_000, max: 20_000 },
  URL: { degraded: 3_000, max: 5_000 },
  DNS: { degraded: 500, max: 1_000 },
  BROWSER: { degraded: 10_000, max: 20_000 },
  HEARTBEAT: { degraded: 10_000, max: 20_000 },
  MULTI_STEP: { degraded: 10_000, max: 20_000 },
  TCP: { degraded: 10_000, max: 20_000 },
  PLAYWRIGHT: { degraded: 10_000, max: 20_000 },
};

export function responseTimeCap(checkType: CheckType): number {
  return checkType === 'DNS' ? DNS_RESPONSE_TIME_CAP_MS : RESPONSE_TIME_CAP_MS;
}

const responseTimeSchema = z.number().int().min(0).max(RESPONSE_TIME_CAP_MS);

const commonFields = {
  name: nameSchema,
  checkType: checkTypeSchema,
  activated: z.boolean().default(true),
  muted: z.boolean().default(false),
  frequency: z.literal(checkFrequencies).default(10),
  tags: z.array(z.string().trim().min(1).max(64)).max(100).default([]),
  locations: z.array(z.string().min(1).max(64)).max(50).default([]),
  groupId: z.uuid().nullable().default(null),
  sslCheckDomain: z.string().trim().min(1).max(255).nullable().default(null),
  runtimeId: z.string().min(1).max(64).nullable().default(null),
  alertSettings: alertSettingsSchema.nullable().default(null),
};

/**
 * The body of POST and PUT: every field but the id. Response times may be left out; their
 * defaults depend on the type, so applyCheckDefaults fills them in after parsing.
 */
export const checkInputSchema = z
  .object({
    ...commonFields,
    degradedResponseTime: responseTimeSchema.optional(),
    maxResponseTime: responseTimeSchema.optional(),
  })
  .superRefine((input, ctx) => {
    // Guards against running on a half-parsed object: zod may still call refinements then.
    if (!Object.hasOwn(responseTimeDefaults, input.checkType)) return;
    const defaults = responseTimeDefaults[input.checkType];
    const cap = responseTimeCap(input.checkType);
    const degraded = input.degradedResponseTime ?? defaults.degraded;
    const max = input.maxResponseTime ?? defaults.max;
    if (max > cap)
      ctx.addIssue({
        code: 'custom',
        path: ['maxResponseTime'],
        message: `must be at most ${cap} ms for ${input.checkType} checks`,
      });
    if (degraded > cap) {
      ctx.addIssue({
        code: 'custom',
        path: ['degradedResponseTime'],
        message: `must be at most ${cap} ms for ${input.checkType} checks`,
      });
    }
    if (degraded > max) {
      ctx.addIssue({
        code: 'custom',
        path: ['degradedResponseTime'],
        message: `must not exceed maxResponseTime (${max} ms)`,
      });
    }
  });

export type CheckInput = z.input<typeof checkInputSchema>;

/** A check as stored in events and read models. */
export const checkSchema = z.object({
  id: z.uuid(),
  ...commonFields,
  degradedResponseTime: responseTimeSchema,
  maxResponseTime: responseTimeSchema,
});
export type Check = z.output<typeof checkSchema>;
export type CheckFields = Omit<Check, 'id'>;

/**
 * Validates a request body and completes it: static defaults from the schema, response times from
 * the type. Throws a ValidationError naming the field.
 */
export function applyCheckDefaults(input: CheckInput): CheckFields {
  const parsed = parseInput(checkInputSchema, input);
  const defaults = responseTimeDefaults[parsed.checkType];
  return {
    ...parsed,
    degradedResponseTime: parsed.degradedResponseTime ?? defaults.degraded,
    maxResponseTime: parsed.maxResponseTime ?? defaults.max,
  };
}
