import { ValidationError } from '#core';
import { ALERT_STATE_VERSION, checkAlertStateSchema, type CheckAlertState } from './state.ts';
import { describeIssues } from './issues.ts';

/** JSON for the state store. Validated on the way out too, so a bug never persists a state that cannot be read back. */
export function serializeAlertState(state: CheckAlertState): string {
  const parsed = checkAlertStateSchema.safeParse(state);
  if (!parsed.success) throw new ValidationError(`alert state: ${describeIssues(parsed.error)}`);
  return JSON.stringify(parsed.data);
}

/**
 * Reads back what serializeAlertState wrote. Throws ValidationError on anything else, in
 * particular on a version this code does not know: guessing at a newer layout after a
 * downgrade could re-send or swallow alerts, so the caller decides (log, start afresh).
 */
export function parseAlertState(json: string): CheckAlertState {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw new ValidationError('alert state: not valid JSON', { cause: error });
  }
  const version = typeof raw === 'object' && raw !== null ? (raw as { version?: unknown }).version : undefined;
  if (version !== ALERT_STATE_VERSION) {
    throw new ValidationError(
      `alert state: unsupported version ${JSON.stringify(version) ?? 'undefined'} (expected ${ALERT_STATE_VERSION})`,
    );
  }
  const parsed = checkAlertStateSchema.safeParse(raw);
  if (!parsed.success) throw new ValidationError(`alert state: ${describeIssues(parsed.error)}`);
  return parsed.data;
}
