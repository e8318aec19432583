/** How often a check is expected to run, in words for tables and records. */
const UNITS: Record<string, string> = { seconds: 's', minutes: 'min', hours: 'h', days: 'd' };

interface Scheduled {
  checkType?: unknown;
  frequency?: unknown;
  heartbeat?: unknown;
}

/**
 * A heartbeat check never runs on `frequency` (the API keeps its default of 10): it expects a ping
 * every period, plus grace, so that is what it shows, e.g. "every 1 d, grace 30 min".
 */
export function scheduleOf(check: Scheduled): string | null {
  const beat = check.heartbeat as
    { period?: number; periodUnit?: string; grace?: number; graceUnit?: string } | undefined;
  if (check.checkType === 'HEARTBEAT') {
    if (!beat || typeof beat.period !== 'number') return null;
    const period = `every ${beat.period} ${UNITS[beat.periodUnit ?? 'minutes'] ?? beat.periodUnit}`;
    if (!beat.grace) return period;
    return `${period}, grace ${beat.grace} ${UNITS[beat.graceUnit ?? 'minutes'] ?? beat.graceUnit}`;
  }
  return typeof check.frequency === 'number' ? `every ${check.frequency} min` : null;
}
