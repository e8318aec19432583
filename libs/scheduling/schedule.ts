import { createHash } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';

/**
 * The schedule, as pure functions of time (ms since the epoch). A check's windows are aligned to
 * the epoch: window W covers [W, W + frequency). Its run is planned at W + offset, where the
 * offset is a stable hash of the check id, so many checks of one frequency spread over the window
 * instead of all firing at second 0.
 */

/** Namespace of the deterministic result ids (UUID v5); fixed forever, or ids would change. */
export const RESULT_ID_NAMESPACE = '6f1c2d0e-7a51-4c3b-9a57-3f4d8e2b1c90';

export function windowStart(timeMs: number, frequencyMs: number): number {
  return Math.floor(timeMs / frequencyMs) * frequencyMs;
}

/** Where in each window the check runs: uniform over [0, frequency), the same on every replica. */
export function offsetMs(checkId: string, frequencyMs: number): number {
  const digest = createHash('sha256').update(checkId).digest();
  return digest.readUIntBE(0, 6) % frequencyMs;
}

export function plannedStart(checkId: string, window: number, frequencyMs: number): number {
  return window + offsetMs(checkId, frequencyMs);
}

/** One id per (check, location, window): a run repeated after a crash counts once downstream. */
export function runResultId(checkId: string, location: string, window: number): string {
  return uuidv5(`run|${checkId}|${location}|${new Date(window).toISOString()}`, RESULT_ID_NAMESPACE);
}

/** One id per missed heartbeat period, named by the time the ping was expected. */
export function heartbeatResultId(checkId: string, expectedPingMs: number): string {
  return uuidv5(`heartbeat|${checkId}|${new Date(expectedPingMs).toISOString()}`, RESULT_ID_NAMESPACE);
}

/** The window a newly scheduled check runs first: the current one (at once if its time has passed). */
export function firstWindow(nowMs: number, frequencyMs: number): number {
  return windowStart(nowMs, frequencyMs);
}

export type ClaimDecision =
  | { action: 'run'; window: number; planned: number }
  /** The window is long past (the runners were down): go on with the current window, no catch-up burst. */
  | { action: 'skip'; next: number; due: number };

/**
 * What to do with a claimed window. It still runs while now < its end + toleranceMs (the lease:
 * a run re-claimed after a crash is at most a lease late); older windows are skipped for the
 * current one, so a restart runs at most the current window.
 */
export function decideClaim(
  checkId: string,
  window: number,
  nowMs: number,
  frequencyMs: number,
  toleranceMs: number,
): ClaimDecision {
  if (nowMs < window + frequencyMs + toleranceMs) {
    return { action: 'run', window, planned: plannedStart(checkId, window, frequencyMs) };
  }
  const next = windowStart(nowMs, frequencyMs);
  return { action: 'skip', next, due: plannedStart(checkId, next, frequencyMs) };
}

/**
 * Why a run was skipped: the runner was saturated (its start would have been later than the
 * lateness allowed), or no runner was up when it was due (a restart after an outage).
 */
export type SkipReason = 'saturated' | 'runners-down';

/**
 * How late after its due time a run may start before its window is skipped: a fraction of the
 * frequency, at least 5 s (a busy host's ordinary hiccup is no overload).
 */
export function maxLatenessMs(frequencyMs: number, fraction: number): number {
  return Math.max(5_000, Math.round(frequencyMs * fraction));
}

export type RunDecision =
  | { action: 'run'; window: number; planned: number }
  /** skipped: the windows given up, oldest first; late: skipped for lateness, not as long past. */
  | { action: 'skip'; late: boolean; skipped: number[]; next: number; due: number };

/**
 * The overload policy on top of decideClaim: a run that would start more than maxLateMs after
 * its due time is skipped, not run late, and the next window not yet late is scheduled. A claim
 * taken over from a dead replica (its due time is a lease end, at least a lease after the entry's
 * own) keeps decideClaim's rule, so a crash loses nothing while its window is under a lease old.
 */
export function decideRun(input: {
  checkId: string;
  window: number;
  /** When the entry was scheduled to be due (the slot's), and when the claimed score said. */
  dueMs: number;
  claimedDueMs: number;
  nowMs: number;
  frequencyMs: number;
  leaseMs: number;
  maxLateMs: number;
  /** True spares a late run until its window has passed (its account is below its fair share). */
  spared?: () => boolean;
}): RunDecision {
  const { checkId, window, nowMs, frequencyMs: f } = input;
  const base = decideClaim(checkId, window, nowMs, f, input.leaseMs);
  const windowsUpTo = (next: number) => {
    const skipped: number[] = [];
    // The most recent ones only: an outage of hours is not a list of every minute.
    for (let w = Math.max(window, next - 60 * f); w < next; w += f) skipped.push(w);
    return skipped;
  };
  if (base.action === 'skip') return { ...base, late: false, skipped: windowsUpTo(base.next) };
  const takeover = input.claimedDueMs >= input.dueMs + input.leaseMs;
  if (takeover || nowMs - input.dueMs <= input.maxLateMs) return base;
  if (nowMs < window + f && input.spared?.()) return base;
  const next = Math.max(window + f, windowStart(nowMs, f));
  return { action: 'skip', late: true, skipped: windowsUpTo(next), next, due: plannedStart(checkId, next, f) };
}

/** The window after one that ran, and when it is due. */
export function nextWindow(checkId: string, window: number, frequencyMs: number): { window: number; due: number } {
  const next = window + frequencyMs;
  return { window: next, due: plannedStart(checkId, next, frequencyMs) };
}

export interface HeartbeatState {
  /** The last ping (or when watching began): missed periods are counted from here. */
  anchor: number;
  /** Missed periods since the anchor already reported. */
  reported: number;
}

export interface HeartbeatEvaluation {
  state: HeartbeatState;
  /** Expected ping times of the periods to report as FAILING now. */
  missed: number[];
  /** When to look again: the deadline of the next period. */
  due: number;
}

/**
 * Missed heartbeat periods. A ping is expected every period after the anchor; period k is missed
 * when no ping came by anchor + k * period + grace. Each missed period is reported once. After a
 * long outage of the runners only the periods whose deadline is within toleranceMs are reported
 * (at least the latest), so a restart never sends a burst of old failures.
 */
export function evaluateHeartbeat(
  state: HeartbeatState,
  lastPingMs: number | null,
  nowMs: number,
  periodMs: number,
  graceMs: number,
  toleranceMs: number,
): HeartbeatEvaluation {
  let { anchor, reported } = state;
  if (lastPingMs !== null && lastPingMs > anchor) {
    anchor = lastPingMs;
    reported = 0;
  }
  const deadline = (k: number) => anchor + k * periodMs + graceMs;
  const latest = Math.max(0, Math.floor((nowMs - anchor - graceMs) / periodMs));
  const missed: number[] = [];
  if (latest > reported) {
    // Deadlines older than the tolerance are past news; of those, only the latest is reported.
    const recent = Math.ceil((nowMs - toleranceMs - anchor - graceMs) / periodMs);
    const from = Math.max(reported + 1, Math.min(latest, recent));
    for (let k = from; k <= latest; k++) missed.push(anchor + k * periodMs);
    reported = latest;
  }
  return { state: { anchor, reported }, missed, due: deadline(reported + 1) };
}
