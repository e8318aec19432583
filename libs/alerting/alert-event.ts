import { z } from 'zod';
import { InternalError } from '#core';
import { resultCheckTypes, type CheckResult } from '#domain';
import { alertTypes, type AlertDecision } from './decision.ts';
import { describeIssues } from './issues.ts';

/** Sanity bound: the settings allow 5 reminders; a larger number is a corrupt message. */
const MAX_REMINDER_SEQUENCE = 100;
const instant = z.iso.datetime({ offset: true });

/**
 * alert-events.v1, on topic vigil.alert-events.v1 keyed by checkId: one alert decided by the
 * alerter, with the fields of the result that caused it. What the check is called, its tags
 * and group are not here: the dispatcher reads them from the read models when it renders, so
 * a rename shows in the next alert. Fields that do not apply are null, never absent.
 */
export const alertEventSchema = z
  .object({
    alertId: z.uuid().describe('Deterministic from check, type, result and reminder sequence: the de-duplication key'),
    accountId: z.uuid(),
    checkId: z.uuid(),
    checkType: z.enum(resultCheckTypes),
    alertType: z.enum(alertTypes),
    isReminder: z.boolean(),
    reminderSequence: z.number().int().min(0).max(MAX_REMINDER_SEQUENCE).describe('0, or n for the nth reminder'),
    resultId: z.uuid(),
    startedAt: instant,
    runLocation: z.string().min(1).max(64),
    responseTime: z.number().nonnegative().describe('ms'),
    errorMessage: z.string().max(4096).nullable(),
    statusCode: z.number().int().min(100).max(999).nullable(),
    statusText: z.string().max(256).nullable(),
    ssl: z
      .object({ daysRemaining: z.number().int(), domain: z.string().min(1).max(253) })
      .strict()
      .nullable()
      .describe('ALERT_SSL only: the dispatcher compares daysRemaining with each channel sslExpiryThreshold'),
    occurredAt: instant.describe('When the alerter decided the alert'),
  })
  .strict()
  .superRefine((event, ctx) => {
    if (event.isReminder !== event.reminderSequence > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['reminderSequence'],
        message: 'must be at least 1 for a reminder and 0 otherwise',
      });
    }
    if (event.isReminder && event.alertType !== 'ALERT_FAILURE') {
      ctx.addIssue({ code: 'custom', path: ['isReminder'], message: 'only ALERT_FAILURE has reminders' });
    }
    if ((event.ssl !== null) !== (event.alertType === 'ALERT_SSL')) {
      ctx.addIssue({ code: 'custom', path: ['ssl'], message: 'required for ALERT_SSL and null otherwise' });
    }
  })
  .describe('alert-events.v1: one alert decided by the alerter');

export type AlertEvent = z.output<typeof alertEventSchema>;

/**
 * The message for one decision. `occurredAt` defaults to now; it is informational only, since
 * de-duplication relies on alertId, which a replay reproduces exactly.
 */
export function buildAlertEvent(
  decision: AlertDecision,
  result: CheckResult,
  occurredAt: Date = new Date(),
): AlertEvent {
  if (decision.resultId !== result.id) {
    throw new InternalError(`alert ${decision.alertId} was decided on result ${decision.resultId}, not ${result.id}`);
  }
  const parsed = alertEventSchema.safeParse({
    alertId: decision.alertId,
    accountId: result.accountId,
    checkId: result.checkId,
    checkType: result.checkType,
    alertType: decision.alertType,
    isReminder: decision.isReminder,
    reminderSequence: decision.reminderSequence,
    resultId: result.id,
    startedAt: result.startedAt,
    runLocation: result.runLocation,
    responseTime: result.responseTime,
    errorMessage: result.errorMessage ?? null,
    statusCode: result.statusCode ?? null,
    statusText: result.statusText ?? null,
    ssl: decision.ssl === undefined ? null : { daysRemaining: decision.ssl.daysRemaining, domain: decision.ssl.domain },
    occurredAt: occurredAt.toISOString(),
  });
  // The inputs are a validated result and our own decision, so a failure here is a bug.
  if (!parsed.success) throw new InternalError(`alert event: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

export type ParsedAlertEvent = { ok: true; value: AlertEvent } | { ok: false; message: string };

/** For consumers: the message lists every problem as `path: reason`. */
export function parseAlertEvent(input: unknown): ParsedAlertEvent {
  const parsed = alertEventSchema.safeParse(input);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, message: describeIssues(parsed.error) };
}

/** The JSON Schema of alert-events.v1, for schemas/alert-event.v1.json. */
export function alertEventJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(alertEventSchema, { io: 'input' }) as Record<string, unknown>;
}
