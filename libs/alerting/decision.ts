export const alertTypes = [
  'ALERT_FAILURE',
  'ALERT_RECOVERY',
  'ALERT_DEGRADED',
  'ALERT_DEGRADED_RECOVERY',
  'ALERT_SSL',
  /** An external check had no result for two frequency windows (when its noDataAlerts is on). */
  'ALERT_NO_DATA',
  /** Results came back after ALERT_NO_DATA. */
  'ALERT_NO_DATA_RECOVERY',
] as const;
export type AlertType = (typeof alertTypes)[number];

export interface SslObservation {
  daysRemaining: number;
  domain: string;
}

/**
 * What the state machine decided for one result. ALERT_SSL is an observation, not yet an alert:
 * the threshold that makes it one belongs to each channel (sslExpiryThreshold), so the
 * dispatcher compares `ssl.daysRemaining` with it and drops the decision for channels that
 * are not concerned.
 */
export interface AlertDecision {
  /** Deterministic: see alertId(). */
  alertId: string;
  alertType: AlertType;
  isReminder: boolean;
  /** 0 unless isReminder; then 1 for the first reminder. */
  reminderSequence: number;
  resultId: string;
  startedAt: string;
  /** Set for ALERT_SSL only. */
  ssl?: SslObservation;
}
