import { call, raw } from './api.ts';
import type { Check, CheckGroup, CheckStatus } from './api.gen.ts';

export type StatusName = 'passing' | 'degraded' | 'failing' | 'no data';

export function statusOf(status: CheckStatus | undefined): StatusName {
  // An external check silent for two frequency windows: its last result is stale, whatever it said.
  if (!status || status.noData) return 'no data';
  if (status.hasFailures) return 'failing';
  return status.isDegraded ? 'degraded' : 'passing';
}

export const statusClass = (s: StatusName) => (s === 'no data' ? 'none' : s);

/** Every check of the account: lists are paged at 100, so the remaining pages load in parallel. */
export async function allChecks(): Promise<Check[]> {
  const first = await raw('GET', '/v1/checks?limit=100&page=1');
  const total = Number(first.headers.get('x-total-count') ?? 0);
  const pages = Math.ceil(total / 100);
  const rest = await Promise.all(
    Array.from({ length: Math.max(0, pages - 1) }, (_, i) => raw('GET', `/v1/checks?limit=100&page=${i + 2}`)),
  );
  return [first, ...rest].flatMap((r) => r.body as Check[]);
}

export async function allGroups(): Promise<CheckGroup[]> {
  return call('GET /v1/check-groups', { query: { limit: 100 } });
}

/** The analytics path segment of a check type. */
export const analyticsKind: Record<string, string> = {
  API: 'api-checks',
  BROWSER: 'browser-checks',
  MULTI_STEP: 'multistep-checks',
  PLAYWRIGHT: 'playwright-checks',
  TCP: 'tcp-checks',
  URL: 'url-monitors',
  HEARTBEAT: 'heartbeat-checks',
  DNS: 'dns-checks',
};

/** The response-time base metric of a type (TCP and DNS report a total); heartbeats have none. */
export function timeMetric(checkType: string): string | null {
  if (checkType === 'HEARTBEAT') return null;
  return checkType === 'TCP' || checkType === 'DNS' ? 'total' : 'responseTime';
}

const SCHEDULE_UNITS: Record<string, string> = { seconds: 's', minutes: 'min', hours: 'h', days: 'd' };

/**
 * How often a check is expected to run, e.g. "every 5 min". A heartbeat check never runs on its
 * `frequency` (the API keeps a default of 10 for it): it expects a ping every period, plus grace.
 */
export function scheduleOf(check: Check): string {
  if (check.checkType === 'HEARTBEAT') {
    const beat = (check as { heartbeat?: { period: number; periodUnit: string; grace: number; graceUnit: string } })
      .heartbeat;
    if (!beat) return 'on each ping';
    const period = `every ${beat.period} ${SCHEDULE_UNITS[beat.periodUnit] ?? beat.periodUnit}`;
    return beat.grace ? `${period}, grace ${beat.grace} ${SCHEDULE_UNITS[beat.graceUnit] ?? beat.graceUnit}` : period;
  }
  return `every ${check.frequency} min`;
}

/** The check page's line about runs the runners skipped rather than ran late, one per location. */
export function skippedLines(status: CheckStatus | undefined): string[] {
  return (status?.skipped ?? []).map(
    ({ location, lastHour, reason }) =>
      `${lastHour} ${lastHour === 1 ? 'run' : 'runs'} skipped in the last hour: ` +
      (reason === 'saturated' ? `runner saturated in ${location}` : `no runner was up in ${location}`),
  );
}
