import type { Check, CheckResult } from '#domain';
import { heartbeatResultId } from './schedule.ts';

/**
 * Which location's runner watches an external check's results for NO_DATA: its first location
 * that a runner serves. Agents of private locations watch nothing (they only run what they lease),
 * so private slugs are passed over, and a check naming only private locations (or none) is watched
 * from the default location; else its silence would go unnoticed.
 */
export function noDataWatcher(
  check: Pick<Check, 'locations'>,
  privateSlugs: ReadonlySet<string> | undefined,
  defaultLocation: string,
): string {
  return check.locations.find((location) => !privateSlugs?.has(location)) ?? defaultLocation;
}

/**
 * The runner's NO_DATA signal for an external check: not a run, a result marked `noData` that only
 * the alerter acts on (the ingestor stores no such record, the status keeps the last real result).
 * Its id is named by the time the result was expected, so a repeated evaluation sends the same one.
 */
export function noDataSignal(
  check: Check,
  accountId: string,
  expectedMs: number,
  graceMs: number,
  location: string,
): CheckResult {
  const deadline = new Date(expectedMs + graceMs).toISOString();
  const windowMin = check.frequency;
  return {
    id: heartbeatResultId(check.id, expectedMs),
    accountId,
    checkId: check.id,
    checkType: check.checkType,
    startedAt: deadline,
    runLocation: location,
    hasFailures: false,
    isDegraded: false,
    responseTime: 0,
    attempts: 1,
    errorMessage: `No result received by ${deadline} (two windows of ${windowMin} min)`,
    // The v1 contract wants a heartbeat status on HEARTBEAT results; this one says nothing came.
    ...(check.checkType === 'HEARTBEAT' ? { heartbeat: { status: 'FAILING' as const } } : {}),
    noData: true,
  };
}
