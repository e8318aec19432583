import type { HeartbeatStatus } from '../check-result.ts';
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
