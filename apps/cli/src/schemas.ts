import { z } from 'zod';

/**
 * The shapes of the API answers the CLI relies on. Loose objects: the CLI reads these fields and
 * passes everything else through to --json untouched, so a new server field never breaks it.
 */

export const errorBodySchema = z.looseObject({
  statusCode: z.number(),
  error: z.string().optional(),
  message: z.string(),
});

export const accountSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  runtimeId: z.string().nullable().optional(),
  plan: z.string().optional(),
});
export type Account = z.infer<typeof accountSchema>;

export const createdAccountSchema = z.looseObject({
  account: accountSchema,
  owner: z.looseObject({ id: z.string(), email: z.string() }),
  apiKey: z.looseObject({ id: z.string(), name: z.string(), key: z.string() }),
});

export const apiKeySchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  role: z.string().nullable(),
  last4: z.string(),
});

export const variableSchema = z.looseObject({
  key: z.string(),
  value: z.string(),
  locked: z.boolean(),
  secret: z.boolean(),
});
export type Variable = z.infer<typeof variableSchema>;

export const runtimeSchema = z.looseObject({
  name: z.string(),
  multiStepSupport: z.boolean(),
  nodeJsVersion: z.string(),
  dependencies: z.record(z.string(), z.string()),
  stage: z.string(),
  runtimeEndOfLife: z.string(),
  description: z.string(),
});

export const checkSchema = z.looseObject({ id: z.string(), name: z.string(), checkType: z.string() });
export const checkGroupSchema = z.looseObject({ id: z.string(), name: z.string() });

// Every type has a name; the rest of the config is the type's own (see channel-types.ts).
export const alertChannelSchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  config: z.looseObject({ name: z.string() }),
});

/** A maintenance window (GET /v1/maintenance-windows): times in UTC, repeat fields null for a one-off. */
export const maintenanceWindowSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  tags: z.array(z.string()).default([]),
  checkIds: z.array(z.string()).default([]),
  startsAt: z.string(),
  endsAt: z.string(),
  repeatInterval: z.number().nullable().default(null),
  repeatUnit: z.string().nullable().default(null),
  repeatEndsAt: z.string().nullable().default(null),
  pauseRuns: z.boolean().default(true),
});
export type MaintenanceWindow = z.infer<typeof maintenanceWindowSchema>;

export const DELIVERY_OUTCOMES = ['delivered', 'failed', 'refused'] as const;

/** One attempt of the delivery log (GET /v1/alert-channels/{id}/deliveries). */
export const deliverySchema = z.looseObject({
  deliveryId: z.string(),
  channelId: z.string(),
  checkId: z.string(),
  alertType: z.string(),
  attempt: z.number(),
  at: z.string(),
  durationMs: z.number(),
  outcome: z.string(),
  statusCode: z.number().nullable(),
  error: z.string().nullable(),
  responseBody: z.string(),
  test: z.boolean(),
  // Optional: servers from before the delivery log said whether a retry follows have neither.
  willRetry: z.boolean().optional(),
  nextAttemptAt: z.string().nullable().optional(),
});
export type Delivery = z.infer<typeof deliverySchema>;

/** The answer of POST /v1/alert-channels/{id}/test. */
export const testMessageSchema = z.looseObject({
  outcome: z.string(),
  statusCode: z.number().nullable(),
  durationMs: z.number(),
  responseBody: z.string(),
  error: z.string().nullable(),
  request: z.looseObject({ url: z.string(), headers: z.record(z.string(), z.string()), body: z.string() }),
});

export const ingestAnswerSchema = z.looseObject({
  accepted: z.number(),
  rejected: z.array(z.looseObject({ index: z.number(), message: z.string() })),
});

const seriesEntrySchema = z.looseObject({ data: z.array(z.record(z.string(), z.unknown())) });
export const analyticsSchema = z.looseObject({
  checkId: z.string(),
  name: z.string(),
  checkType: z.string(),
  from: z.string(),
  to: z.string(),
  series: z.array(seriesEntrySchema),
  metadata: z.record(
    z.string(),
    z.looseObject({ unit: z.string().optional(), label: z.string().optional(), aggregation: z.string().optional() }),
  ),
});
export type Analytics = z.infer<typeof analyticsSchema>;

const metricSchema = z.looseObject({
  name: z.string(),
  displayName: z.string().optional(),
  description: z.string().optional(),
  unit: z.string().optional(),
});
export const metricsCatalogueSchema = z.looseObject({
  data: z.record(z.string(), z.array(metricSchema)),
  meta: z.looseObject({}).optional(),
});

export const statusPageSchema = z.looseObject({
  id: z.string(),
  slug: z.string(),
  title: z.string(),
  checkIds: z.array(z.string()),
});
