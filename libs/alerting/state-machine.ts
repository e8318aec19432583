import { occurrenceAt, type AlertSettings, type CheckResult, type WindowTimes } from '#domain';
import { alertId } from './alert-id.ts';
import type { AlertDecision, AlertType } from './decision.ts';
import { isFresh, remember } from './ordering.ts';
import { escalationReached, reminderDue } from './settings.ts';
import { observeSsl } from './ssl.ts';
import type { AlertStatus, CheckAlertState, Streak } from './state.ts';

export interface AlertInput {
  result: CheckResult;
  settings: AlertSettings;
  check: {
    activated: boolean;
    muted: boolean;
    /** The maintenance windows that cover this check (by tag or id); a result inside one alerts nobody. */
    maintenance?: readonly WindowTimes[];
    /** The check's setting: whether its silence (a noData signal from the runner) alerts. */
    noDataAlerts?: boolean;
  };
}

export interface AlertEvolution {
  state: CheckAlertState;
  alerts: AlertDecision[];
}

type RecoveryType = Extract<AlertType, 'ALERT_RECOVERY' | 'ALERT_DEGRADED_RECOVERY'>;

type Transition =
  | { kind: 'none' }
  | { kind: 'failure' }
  | { kind: 'degraded' }
  | { kind: 'reminder'; sequence: number }
  | { kind: 'recovery'; alertType: RecoveryType | null };

const NONE: Transition = { kind: 'none' };

/** A failure outranks degradation: a failing run that is also slow is failing. */
export function resultStatus(result: Pick<CheckResult, 'hasFailures' | 'isDegraded'>): AlertStatus {
  if (result.hasFailures) return 'failing';
  return result.isDegraded ? 'degraded' : 'passing';
}

/**
 * Applies one result to a check's alert state. Pure: time is the result's startedAt.
 *
 * A stale or repeated result (see isFresh) returns the state unchanged and no alerts. A muted or
 * deactivated check moves through the same states but emits nothing, and what it skipped is
 * never sent later: see `apply` for what that means for reminders and recoveries.
 */
export function evolveAlertState(current: CheckAlertState, input: AlertInput): AlertEvolution {
  let state = current;
  const { result, settings, check } = input;
  if (result.noData) return noDataSignal(state, input);
  if (!isFresh(state.last, result)) return { state, alerts: [] };
  // Results are back after an announced silence: that ends first, whatever this result says.
  const back: AlertDecision[] = [];
  if (state.noData) {
    state = { ...state, noData: false };
    if (!check.muted && check.activated) back.push(decision('ALERT_NO_DATA_RECOVERY', 0, result));
  }
  if (inMaintenance(check.maintenance, result.startedAt))
    return { state: duringMaintenance(state, result), alerts: back };

  const observed = resultStatus(result);
  const at = result.startedAt;
  const counted: CheckAlertState = {
    ...state,
    failing: observed === 'failing' ? extend(state.failing, at) : null,
    troubled: observed === 'passing' ? null : extend(state.troubled, at),
    last: remember(state.last, result),
  };
  const silent = check.muted || !check.activated;
  const step = transition(counted, observed, settings, at);
  const stepped = apply(counted, step, silent, at);
  const ssl = observeSsl(stepped, result, silent);

  const alerts: AlertDecision[] = back;
  const decided = silent ? null : decisionFor(step, result);
  if (decided !== null) alerts.push(decided);
  if (ssl.decision !== null) alerts.push(ssl.decision);
  return { state: ssl.state, alerts };
}

/**
 * The runner's word that an external check had no result for two frequency windows. It is not a
 * run: it moves no streak and is not remembered as the last result (results that come late still
 * count). It alerts once per silence, when the check asks for it and nobody has silenced the check
 * (muted, deactivated, in maintenance); the next fresh result ends the silence with a recovery.
 */
function noDataSignal(state: CheckAlertState, input: AlertInput): AlertEvolution {
  const { result, check } = input;
  if (state.noData || !check.noDataAlerts || check.muted || !check.activated) return { state, alerts: [] };
  if (inMaintenance(check.maintenance, result.startedAt)) return { state, alerts: [] };
  return { state: { ...state, noData: true }, alerts: [decision('ALERT_NO_DATA', 0, result)] };
}

function inMaintenance(windows: readonly WindowTimes[] | undefined, startedAt: string): boolean {
  if (windows === undefined || windows.length === 0) return false;
  const at = Date.parse(startedAt);
  return windows.some((window) => occurrenceAt(window, at) !== null);
}

/**
 * A result inside a maintenance window is planned work: it counts towards nothing. The streaks
 * start again, so a failure that began inside the window alerts only if it is still failing after
 * it, as a fresh failure under the check's usual escalation. An incident announced before the
 * window stays open (status, what was announced, reminders): its recovery or its next reminder
 * goes out on the first run after the window, so every receiver that heard of it hears it end.
 */
function duringMaintenance(state: CheckAlertState, result: CheckResult): CheckAlertState {
  return { ...state, failing: null, troubled: null, last: remember(state.last, result) };
}

function extend(streak: Streak | null, at: string): Streak {
  return streak === null ? { count: 1, since: at } : { count: streak.count + 1, since: streak.since };
}

/**
 * The table. From `passing` a threshold must be reached; between `degraded` and
 * `failing` the change is announced at once, because the incident has already passed its
 * threshold. ALERT_FAILURE is only ever triggered by a failing result and ALERT_DEGRADED by a
 * degraded one, so each alert carries a result that shows what it says.
 */
function transition(state: CheckAlertState, observed: AlertStatus, settings: AlertSettings, at: string): Transition {
  if (observed === 'passing') {
    return state.status === 'passing' ? NONE : { kind: 'recovery', alertType: recoveryType(state.announced) };
  }
  if (observed === 'failing') {
    if (state.status === 'failing') {
      const sequence = reminderDue(state.reminders, settings, at);
      return sequence === null ? NONE : { kind: 'reminder', sequence };
    }
    if (state.status === 'degraded') return { kind: 'failure' };
    return escalationReached(state.failing, settings, at) ? { kind: 'failure' } : NONE;
  }
  if (state.status === 'failing') return { kind: 'degraded' };
  if (state.status === 'degraded') return NONE;
  return escalationReached(state.troubled, settings, at) ? { kind: 'degraded' } : NONE;
}

/**
 * The recovery answers the worst alert the receivers actually got in this incident. A check
 * that went failing → degraded → passing sends ALERT_RECOVERY, not ALERT_DEGRADED_RECOVERY:
 * channels that do not send degraded alerts (the default) would otherwise never hear that
 * the failure they were told about is over. An incident nobody was told about ends silently.
 */
function recoveryType(announced: CheckAlertState['announced']): RecoveryType | null {
  if (announced.failure) return 'ALERT_RECOVERY';
  if (announced.degraded) return 'ALERT_DEGRADED_RECOVERY';
  return null;
}

/**
 * The state after a transition. When the check is silent (muted or deactivated):
 * - an escalation still changes the state, so unmuting a check that is still failing does not
 *   send the ALERT_FAILURE it missed, and it gets no reminders (reminders stay null) of an
 *   alert it never sent;
 * - a reminder that falls due is used up, so unmuting does not release a burst of them;
 * - a recovery ends the incident without a word, and nothing is owed after unmuting.
 */
function apply(state: CheckAlertState, step: Transition, silent: boolean, at: string): CheckAlertState {
  switch (step.kind) {
    case 'none':
      return state;
    case 'failure':
      return {
        ...state,
        status: 'failing',
        announced: { ...state.announced, failure: state.announced.failure || !silent },
        // A new ALERT_FAILURE (e.g. degraded → failing again) starts a new reminder sequence.
        reminders: silent ? null : { sent: 0, lastAt: at },
      };
    case 'degraded':
      return {
        ...state,
        status: 'degraded',
        announced: { ...state.announced, degraded: state.announced.degraded || !silent },
        reminders: null,
      };
    case 'reminder':
      return { ...state, reminders: { sent: step.sequence, lastAt: at } };
    case 'recovery':
      return { ...state, status: 'passing', announced: { failure: false, degraded: false }, reminders: null };
  }
}

function decisionFor(step: Transition, result: CheckResult): AlertDecision | null {
  switch (step.kind) {
    case 'none':
      return null;
    case 'failure':
      return decision('ALERT_FAILURE', 0, result);
    case 'degraded':
      return decision('ALERT_DEGRADED', 0, result);
    case 'reminder':
      return decision('ALERT_FAILURE', step.sequence, result);
    case 'recovery':
      return step.alertType === null ? null : decision(step.alertType, 0, result);
  }
}

function decision(alertType: AlertType, reminderSequence: number, result: CheckResult): AlertDecision {
  return {
    alertId: alertId({ checkId: result.checkId, alertType, resultId: result.id, reminderSequence }),
    alertType,
    isReminder: reminderSequence > 0,
    reminderSequence,
    resultId: result.id,
    startedAt: result.startedAt,
  };
}
