import type { HeartbeatStatus } from '../check-result.ts';
import { isManagedCheck, type Check } from './check-schema.ts';
import { toSeconds, type HeartbeatDefinition } from './definition.ts';

/** A heartbeat's period and grace in ms. */
export function heartbeatTimes(heartbeat: HeartbeatDefinition): { periodMs: number; graceMs: number } {
  return {
    periodMs: toSeconds(heartbeat.period, heartbeat.periodUnit) * 1000,
    graceMs: toSeconds(heartbeat.grace, heartbeat.graceUnit) * 1000,
  };
}

/**
 * How a ping relates to the one before it. The next ping is expected one period after the last:
 * - the first ping ever, or one near the expected time: RECEIVED;
 * - one that comes before half the period has passed: EARLY (a job that ran twice, say);
 * - one after the expected time but within the grace time: GRACE (passing, but degraded);
 * - one after period + grace: LATE. The runner has already reported that period as FAILING; the
 *   late ping itself passes, so it is what recovers the check.
 */
export function classifyPing(
  nowMs: number,
  lastPingMs: number | null,
  heartbeat: HeartbeatDefinition,
): HeartbeatStatus {
  if (lastPingMs === null) return 'RECEIVED';
  const { periodMs, graceMs } = heartbeatTimes(heartbeat);
  const since = nowMs - lastPingMs;
  if (since < periodMs / 2) return 'EARLY';
  if (since <= periodMs) return 'RECEIVED';
  if (since <= periodMs + graceMs) return 'GRACE';
  return 'LATE';
}

/**
 * An external check (no definition: its results come from outside) is watched like a heartbeat
 * whose pings are its results: a result is expected every frequency window, and a second window is
 * its grace. Null for a check Vigil runs itself, or one that is deactivated.
 */
export function silenceTimes(check: Check): { periodMs: number; graceMs: number } | null {
  if (!check.activated || isManagedCheck(check)) return null;
  const windowMs = check.frequency * 60_000;
  return { periodMs: windowMs, graceMs: windowMs };
}

/**
 * Whether an external check shows NO_DATA at `nowMs`: its last result is older than two frequency
 * windows (period + grace). A check that never had a result has no status to mark; it shows as
 * not run yet, as before.
 */
export function isNoData(check: Check, lastRunAt: string | null, nowMs: number): boolean {
  const times = silenceTimes(check);
  if (times === null || lastRunAt === null) return false;
  const last = Date.parse(lastRunAt);
  return Number.isFinite(last) && nowMs - last > times.periodMs + times.graceMs;
}
