import { ValidationError } from '#core';
import { alertSettingsSchema, type AlertSettings, type AlertSettingsInput } from '#domain';
import { describeIssues } from './issues.ts';
import type { Streak } from './state.ts';

const MINUTE_MS = 60_000;

/**
 * The settings that apply to a check. A check's own settings replace the account's as a whole,
 * as in Checkly (a check either uses the global settings or its own): a check's settings are
 * stored complete, so a field-by-field merge could not tell a chosen value from a default.
 * Both go through the schema, so settings stored before a field existed get its default.
 */
export function resolveAlertSettings(
  accountSettings: AlertSettingsInput | null | undefined,
  checkSettings: AlertSettingsInput | null | undefined,
): AlertSettings {
  const parsed = alertSettingsSchema.safeParse(checkSettings ?? accountSettings ?? {});
  if (!parsed.success) throw new ValidationError(`alertSettings: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * Whether a streak has reached the escalation threshold. RUN_BASED counts results. TIME_BASED
 * measures from the first result of the streak to the current one, by startedAt: a single
 * failing run therefore never reaches a time threshold, a later run must confirm it.
 */
export function escalationReached(streak: Streak | null, settings: AlertSettings, at: string): boolean {
  if (streak === null) return false;
  if (settings.escalationType === 'RUN_BASED') return streak.count >= settings.runBasedEscalation.failedRunThreshold;
  return elapsedMs(streak.since, at) >= settings.timeBasedEscalation.minutesFailingThreshold * MINUTE_MS;
}

/** The sequence number of the reminder due at `at`, or null when none is. */
export function reminderDue(
  reminders: { sent: number; lastAt: string } | null,
  settings: AlertSettings,
  at: string,
): number | null {
  if (reminders === null || reminders.sent >= settings.reminders.amount) return null;
  return elapsedMs(reminders.lastAt, at) >= settings.reminders.interval * MINUTE_MS ? reminders.sent + 1 : null;
}

export function elapsedMs(from: string, to: string): number {
  return Date.parse(to) - Date.parse(from);
}
