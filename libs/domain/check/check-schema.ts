import { z } from 'zod';
import { alertSettingsSchema } from '../account/alert-settings.ts';
import { nameSchema, parseInput } from '../validation.ts';
import {
  apiRequestSchema,
  assertionSourcesByType,
  browserSchema,
  dnsRequestSchema,
  heartbeatSchema,
  retryStrategySchema,
  tcpRequestSchema,
  urlRequestSchema,
  refineDnsRequest,
} from './definition.ts';
import {
  SCRIPT_DEGRADED_DEFAULT_MS,
  SCRIPT_RESPONSE_TIME_CAP_MS,
  isScriptCheck,
  refineScriptShape,
  scriptFilesSchema,
  scriptSchema,
} from './script.ts';

export * from './script.ts';

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
  MULTI_STEP: { degraded: SCRIPT_DEGRADED_DEFAULT_MS, max: SCRIPT_RESPONSE_TIME_CAP_MS },
  TCP: { degraded: 10_000, max: 20_000 },
  PLAYWRIGHT: { degraded: SCRIPT_DEGRADED_DEFAULT_MS, max: SCRIPT_RESPONSE_TIME_CAP_MS },
};
const scriptDefaults = { degraded: SCRIPT_DEGRADED_DEFAULT_MS, max: SCRIPT_RESPONSE_TIME_CAP_MS };

/**
 * The largest maxResponseTime a check may have. A script's is its run budget, so script checks
 * (MULTI_STEP, PLAYWRIGHT, a BROWSER check with a script) may take up to 240 s.
 */
export function responseTimeCap(checkType: CheckType, definition: { script?: unknown } = {}): number {
  if (checkType === 'DNS') return DNS_RESPONSE_TIME_CAP_MS;
  if (checkType === 'MULTI_STEP' || checkType === 'PLAYWRIGHT') return SCRIPT_RESPONSE_TIME_CAP_MS;
  if (checkType === 'BROWSER' && definition.script !== undefined) return SCRIPT_RESPONSE_TIME_CAP_MS;
  return RESPONSE_TIME_CAP_MS;
}

/** The response times a check gets when it leaves them out: a BROWSER script runs like PLAYWRIGHT. */
export function responseTimeDefaultsFor(
  checkType: CheckType,
  definition: { script?: unknown } = {},
): { degraded: number; max: number } {
  if (checkType === 'BROWSER' && definition.script !== undefined) return scriptDefaults;
  return responseTimeDefaults[checkType];
}

// The per-type caps are applied by checkInputSchema's refinement; this is the largest of them.
const responseTimeSchema = z.number().int().min(0).max(SCRIPT_RESPONSE_TIME_CAP_MS);

const commonFields = {
  name: nameSchema,
  activated: z.boolean().default(true),
  muted: z.boolean().default(false),
  frequency: z.literal(checkFrequencies).default(10),
  tags: z.array(z.string().trim().min(1).max(64)).max(100).default([]),
  locations: z.array(z.string().min(1).max(64)).max(50).default([]),
  groupId: z.uuid().nullable().default(null),
  sslCheckDomain: z.string().trim().min(1).max(255).nullable().default(null),
  runtimeId: z.string().min(1).max(64).nullable().default(null),
  alertSettings: alertSettingsSchema.nullable().default(null),
  noDataAlerts: z
    .boolean()
    .default(false)
    .describe(
      'External checks (no definition): alert (ALERT_NO_DATA, then ALERT_NO_DATA_RECOVERY) when no result came for two frequency windows',
    ),
};

/** Stored heartbeat definitions also carry the ping token, which the server mints. */
export const pingTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{20,64}$/);
export const storedHeartbeatSchema = heartbeatSchema.extend({ pingToken: pingTokenSchema });
export type StoredHeartbeat = z.output<typeof storedHeartbeatSchema>;
/**
 * What a client sends: the token and URL it read back may come along in a PUT of the whole
 * check; they are ignored, because only rotation changes a token.
 */
const inputHeartbeatSchema = heartbeatSchema.extend({
  pingToken: z.string().max(128).optional(),
  pingUrl: z.string().max(2048).optional(),
});

/** When a script check keeps its run's evidence, and who may read its trace (BROWSER checks say so under `browser`). */
const scriptArtifactsShape = {
  artifacts: z
    .enum(['ALWAYS', 'ON_FAILURE', 'NEVER'])
    .optional()
    .describe(
      'When a run keeps its evidence (PLAYWRIGHT: a full-page screenshot and the trace; MULTI_STEP: the bodies of failing requests); absent means ON_FAILURE',
    ),
  shareArtifacts: z
    .boolean()
    .optional()
    .describe(
      'Traces may hold what a script typed or was sent, secrets included: only ADMIN and OWNER read them unless this is true',
    ),
};

/**
 * One object schema per type, each with the definition fields that type may carry. Every
 * definition is optional: a check without one is an *external* check, fed by outside producers.
 */
function variants<B extends z.ZodRawShape, H extends z.ZodType>(base: B, heartbeat: H) {
  const retryStrategy = retryStrategySchema.optional();
  const of = <T extends CheckType, S extends z.ZodRawShape>(type: T, shape: S) =>
    z.object({ ...base, checkType: z.literal(type), ...shape }).meta({ title: `${type} check` });
  return [
    of('API', { request: apiRequestSchema.optional(), retryStrategy }),
    of('URL', { request: urlRequestSchema.optional(), retryStrategy }),
    of('TCP', { request: tcpRequestSchema.optional(), retryStrategy }),
    of('DNS', { request: dnsRequestSchema.optional(), retryStrategy }),
    of('BROWSER', { browser: browserSchema.optional(), script: scriptSchema.optional(), retryStrategy }),
    of('HEARTBEAT', { heartbeat: heartbeat.optional() }),
    of('MULTI_STEP', { script: scriptSchema.optional(), ...scriptArtifactsShape, retryStrategy }),
    of('PLAYWRIGHT', {
      script: scriptSchema.optional(),
      files: scriptFilesSchema.optional(),
      ...scriptArtifactsShape,
      retryStrategy,
    }),
  ] as const;
}

const inputBase = {
  ...commonFields,
  // A location becomes a result's runLocation, which refuses control characters: refuse them here,
  // on input only, so checks stored before the rule still read back.
  locations: z
    .array(
      z
        .string()
        .min(1)
        .max(64)
        .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters'),
    )
    .max(50)
    .default([]),
  degradedResponseTime: responseTimeSchema.optional(),
  maxResponseTime: responseTimeSchema.optional(),
};

/**
 * The body of POST and PUT: every field but the id, discriminated by checkType so each type
 * carries its own definition. Response times may be left out; their defaults depend on the
 * type, so applyCheckDefaults fills them in after parsing.
 */
export const checkInputSchema = z
  .discriminatedUnion('checkType', variants(inputBase, inputHeartbeatSchema))
  .superRefine((input, ctx) => {
    // Guards against running on a half-parsed object: zod may still call refinements then.
    if (!Object.hasOwn(responseTimeDefaults, input.checkType)) return;
    const defaults = responseTimeDefaultsFor(input.checkType, input as { script?: unknown });
    const cap = responseTimeCap(input.checkType, input as { script?: unknown });
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
    refineAssertionSources(input, ctx);
    refineScriptShape(input, ctx);
    if (input.checkType === 'DNS') refineDnsRequest(input.request, ctx, ['request']);
  });

/** Each type accepts only the assertion sources it can measure. */
function refineAssertionSources(input: { checkType: CheckType; request?: unknown }, ctx: z.RefinementCtx): void {
  if (!Object.hasOwn(assertionSourcesByType, input.checkType)) return;
  const allowed: readonly string[] = assertionSourcesByType[input.checkType as keyof typeof assertionSourcesByType];
  const assertions = (input.request as { assertions?: { source: string }[] } | undefined)?.assertions ?? [];
  assertions.forEach((assertion, index) => {
    if (!allowed.includes(assertion.source)) {
      ctx.addIssue({
        code: 'custom',
        path: ['request', 'assertions', index, 'source'],
        message: `${input.checkType} checks assert on ${allowed.join(', ')}, not ${assertion.source}`,
      });
    }
  });
}

export type CheckInput = z.input<typeof checkInputSchema>;

const storedBase = {
  id: z.uuid(),
  ...commonFields,
  degradedResponseTime: responseTimeSchema,
  maxResponseTime: responseTimeSchema,
};
/** A check as stored in events and read models. */
export const checkSchema = z.discriminatedUnion('checkType', variants(storedBase, storedHeartbeatSchema));
export type Check = z.output<typeof checkSchema>;
/** What the API answers: a heartbeat check also shows its ping URL. */
export const checkResponseSchema = z.discriminatedUnion(
  'checkType',
  variants(storedBase, storedHeartbeatSchema.extend({ pingUrl: z.string() })),
);
export type CheckResponse = z.output<typeof checkResponseSchema>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type CheckFields = DistributiveOmit<Check, 'id'>;

/** The runnable definition of a check, or null for an external check (fed by outside producers). */
export function isManagedCheck(check: Check): boolean {
  switch (check.checkType) {
    case 'API':
    case 'URL':
    case 'TCP':
    case 'DNS':
      return check.request !== undefined;
    case 'BROWSER':
      return check.browser !== undefined || check.script !== undefined;
    case 'HEARTBEAT':
      return check.heartbeat !== undefined;
    case 'MULTI_STEP':
    case 'PLAYWRIGHT':
      return isScriptCheck(check);
    default:
      return false;
  }
}

/**
 * Validates a request body and completes it: static defaults from the schema, response times from
 * the type. Throws a ValidationError naming the field.
 */
export function applyCheckDefaults(input: CheckInput): CheckFields {
  const parsed = parseInput(checkInputSchema, input) as CheckFields & {
    degradedResponseTime?: number;
    maxResponseTime?: number;
  };
  const defaults = responseTimeDefaultsFor(parsed.checkType, parsed as { script?: unknown });
  return {
    ...parsed,
    degradedResponseTime: parsed.degradedResponseTime ?? defaults.degraded,
    maxResponseTime: parsed.maxResponseTime ?? defaults.max,
  } as CheckFields;
}
