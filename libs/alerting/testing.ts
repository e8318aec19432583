import {
  alertSettingsSchema,
  checkResultSchema,
  type AlertSettings,
  type AlertSettingsInput,
  type CheckResult,
  type CheckResultInput,
} from '#domain';
import type { AlertDecision } from './decision.ts';
import { evolveAlertState, type AlertEvolution, type AlertInput } from './state-machine.ts';
import { initialAlertState, type CheckAlertState } from './state.ts';

/** Test support for the state machine: results on a minute timeline and given-when-then. */
export const CHECK_ID = '5d2f0a9c-3b1e-4c7d-8a6f-0000000000c1';
export const ACCOUNT_ID = '5d2f0a9c-3b1e-4c7d-8a6f-0000000000a1';
export const T0 = Date.parse('2025-03-04T10:00:00.000Z');
const MINUTE = 60_000;

export const active: AlertInput['check'] = { activated: true, muted: false };
export const muted: AlertInput['check'] = { activated: true, muted: true };
export const deactivated: AlertInput['check'] = { activated: false, muted: false };

export function at(minute: number): string {
  return new Date(T0 + minute * MINUTE).toISOString();
}

/** A deterministic id per start time, so a result built twice for the same minute is a duplicate. */
export function idAt(minute: number): string {
  // Offset by 2^47 so that minutes before T0 still give a non-negative 12-digit hex suffix.
  const suffix = (Math.round(minute * MINUTE) + 2 ** 47).toString(16).padStart(12, '0');
  return `00000000-0000-4000-8000-${suffix}`;
}

function result(
  minute: number,
  flags: Pick<CheckResultInput, 'hasFailures' | 'isDegraded'>,
  overrides: Partial<CheckResultInput>,
): CheckResult {
  return checkResultSchema.parse({
    id: idAt(minute),
    accountId: ACCOUNT_ID,
    checkId: CHECK_ID,
    checkType: 'API',
    startedAt: at(minute),
    runLocation: 'eu-west-1',
    responseTime: 120,
    ...flags,
    ...overrides,
  });
}

export const pass = (minute: number, overrides: Partial<CheckResultInput> = {}) =>
  result(minute, { hasFailures: false, isDegraded: false }, overrides);
export const degrade = (minute: number, overrides: Partial<CheckResultInput> = {}) =>
  result(minute, { hasFailures: false, isDegraded: true }, overrides);
export const fail = (minute: number, overrides: Partial<CheckResultInput> = {}) =>
  result(
    minute,
    { hasFailures: true, isDegraded: false },
    { errorMessage: 'HTTP 503', statusCode: 503, statusText: 'Service Unavailable', ...overrides },
  );

export function settings(input: AlertSettingsInput = {}): AlertSettings {
  return alertSettingsSchema.parse(input);
}
export function runBased(failedRunThreshold: number, reminders: AlertSettingsInput['reminders'] = {}): AlertSettings {
  return settings({ escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold }, reminders });
}
export function timeBased(
  minutesFailingThreshold: 5 | 10 | 15 | 30,
  reminders: AlertSettingsInput['reminders'] = {},
): AlertSettings {
  return settings({ escalationType: 'TIME_BASED', timeBasedEscalation: { minutesFailingThreshold }, reminders });
}

/** One step of a history: a bare result uses the scenario's check and settings. */
export type Step = CheckResult | { result: CheckResult; check?: AlertInput['check']; settings?: AlertSettings };

export interface Scenario {
  settings: AlertSettings;
  check?: AlertInput['check'];
  state?: CheckAlertState;
}

function inputFor(scenario: Scenario, step: Step): AlertInput {
  const explicit = 'result' in step ? step : { result: step };
  return {
    result: explicit.result,
    settings: explicit.settings ?? scenario.settings,
    check: explicit.check ?? scenario.check ?? active,
  };
}

/** Short names for assertions: `ALERT_FAILURE`, `ALERT_FAILURE#2` for the second reminder, `ALERT_SSL(12)`. */
export function label(decision: AlertDecision): string {
  if (decision.isReminder) return `${decision.alertType}#${decision.reminderSequence}`;
  if (decision.ssl !== undefined) return `${decision.alertType}(${decision.ssl.daysRemaining})`;
  return decision.alertType;
}

/** The labels emitted at each step, in order. */
export function replay(scenario: Scenario, steps: Step[]): string[][] {
  let state = scenario.state ?? initialAlertState();
  return steps.map((step) => {
    const next = evolveAlertState(state, inputFor(scenario, step));
    state = next.state;
    return next.alerts.map(label);
  });
}

/** Every label emitted over the steps, flattened. */
export function emitted(scenario: Scenario, steps: Step[]): string[] {
  return replay(scenario, steps).flat();
}

/**
 * given(scenario, history).when(step): folds the history, then applies one more step and
 * returns what that step decided, with `labels` for short assertions.
 */
export function given(scenario: Scenario, history: Step[] = []) {
  let state = scenario.state ?? initialAlertState();
  const historyAlerts: AlertDecision[] = [];
  for (const step of history) {
    const next = evolveAlertState(state, inputFor(scenario, step));
    state = next.state;
    historyAlerts.push(...next.alerts);
  }
  return {
    state,
    historyLabels: historyAlerts.map(label),
    when(step: Step): AlertEvolution & { labels: string[] } {
      const next = evolveAlertState(state, inputFor(scenario, step));
      return { ...next, labels: next.alerts.map(label) };
    },
  };
}

/** Results at the given minutes, built by one factory. */
export function series(factory: (minute: number) => CheckResult, minutes: number[]): CheckResult[] {
  return minutes.map((minute) => factory(minute));
}

export function range(from: number, count: number, step = 1): number[] {
  return Array.from({ length: count }, (_, i) => from + i * step);
}
