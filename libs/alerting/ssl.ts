import type { CheckResult } from '#domain';
import { alertId } from './alert-id.ts';
import type { AlertDecision } from './decision.ts';
import type { CheckAlertState } from './state.ts';

/**
 * The largest sslExpiryThreshold a channel may set. A certificate with more days left concerns
 * no channel, so it is not observed and does not use up the day: a result later the same day
 * that is within reach still is.
 */
export const SSL_OBSERVATION_MAX_DAYS = 30;

/**
 * At most one SSL observation per check per UTC day (of the result's startedAt). Whether it
 * becomes an ALERT_SSL is each channel's call, against its own threshold. A muted check
 * observes nothing and does not use up its day, so unmuting it the same day still reports the
 * certificate.
 */
export function observeSsl(
  state: CheckAlertState,
  result: CheckResult,
  silent: boolean,
): { state: CheckAlertState; decision: AlertDecision | null } {
  const ssl = result.ssl;
  if (ssl === undefined || silent || ssl.daysRemaining > SSL_OBSERVATION_MAX_DAYS) return { state, decision: null };
  const day = new Date(result.startedAt).toISOString().slice(0, 10);
  if (state.sslDay === day) return { state, decision: null };
  const decision: AlertDecision = {
    alertId: alertId({ checkId: result.checkId, alertType: 'ALERT_SSL', resultId: result.id, reminderSequence: 0 }),
    alertType: 'ALERT_SSL',
    isReminder: false,
    reminderSequence: 0,
    resultId: result.id,
    startedAt: result.startedAt,
    ssl: { daysRemaining: ssl.daysRemaining, domain: ssl.domain },
  };
  return { state: { ...state, sslDay: day }, decision };
}
