/**
 * When a maintenance window is in force, for the check page's chart bands: a copy of
 * occurrencesBetween from libs/domain/maintenance-window/calendar.ts (the console bundle cannot
 * import #domain, which brings zod and node modules). test/web/calendar-copy.test.ts checks that
 * both answer the same for many windows, so the copy cannot drift.
 */
export const repeatUnits = ['DAY', 'WEEK', 'MONTH'] as const;
export type RepeatUnit = (typeof repeatUnits)[number];

/** The fields of a window that decide when it is in force. */
export interface WindowTimes {
  startsAt: string;
  endsAt: string;
  repeatInterval: number | null;
  repeatUnit: RepeatUnit | null;
  repeatEndsAt: string | null;
}

export interface Occurrence {
  startMs: number;
  endMs: number;
}

const DAY_MS = 86_400_000;
const fixedPeriodMs: Record<Exclude<RepeatUnit, 'MONTH'>, number> = { DAY: DAY_MS, WEEK: 7 * DAY_MS };

/**
 * The start of the k-th occurrence. A monthly repeat keeps the first occurrence's day of the month
 * and time of day; a day the month does not have (the 31st in April) becomes its last day.
 */
function occurrenceStart(first: Date, unit: RepeatUnit, interval: number, k: number): number {
  if (unit !== 'MONTH') return first.getTime() + k * interval * fixedPeriodMs[unit];
  const monthIndex = first.getUTCFullYear() * 12 + first.getUTCMonth() + k * interval;
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex - year * 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(
    year,
    month,
    Math.min(first.getUTCDate(), lastDay),
    first.getUTCHours(),
    first.getUTCMinutes(),
    first.getUTCSeconds(),
    first.getUTCMilliseconds(),
  );
}

/** The index of the last occurrence that starts at or before `atMs` (-1 when none has started). */
function lastStartedIndex(times: WindowTimes, first: Date, atMs: number): number {
  const startMs = first.getTime();
  if (atMs < startMs) return -1;
  const unit = times.repeatUnit!;
  const interval = times.repeatInterval!;
  let k: number;
  if (unit === 'MONTH') {
    const at = new Date(atMs);
    const months = (at.getUTCFullYear() - first.getUTCFullYear()) * 12 + at.getUTCMonth() - first.getUTCMonth();
    k = Math.floor(months / interval);
  } else {
    k = Math.floor((atMs - startMs) / (interval * fixedPeriodMs[unit]));
  }
  // The estimate can be one too high in a month whose occurrence lies later in the month than atMs.
  while (k > 0 && occurrenceStart(first, unit, interval, k) > atMs) k -= 1;
  const repeatEnds = times.repeatEndsAt === null ? Infinity : Date.parse(times.repeatEndsAt);
  // Past the end of the repeats: the last occurrence is the last one that starts by repeatEndsAt.
  if (k > 0 && occurrenceStart(first, unit, interval, k) > repeatEnds)
    return lastStartedIndex({ ...times, repeatEndsAt: null }, first, repeatEnds);
  return k;
}

/**
 * Occurrences that overlap [fromMs, toMs), oldest first, at most `limit` of them (status pages and
 * charts ask for a bounded range; the limit keeps a daily window over years from costing much).
 */
export function occurrencesBetween(times: WindowTimes, fromMs: number, toMs: number, limit = 1000): Occurrence[] {
  const first = new Date(times.startsAt);
  const durationMs = Date.parse(times.endsAt) - first.getTime();
  if (times.repeatUnit === null || times.repeatInterval === null) {
    const one = { startMs: first.getTime(), endMs: first.getTime() + durationMs };
    return one.endMs > fromMs && one.startMs < toMs ? [one] : [];
  }
  const unit = times.repeatUnit;
  const interval = times.repeatInterval;
  const repeatEnds = times.repeatEndsAt === null ? Infinity : Date.parse(times.repeatEndsAt);
  const out: Occurrence[] = [];
  for (let k = Math.max(0, lastStartedIndex(times, first, fromMs)); out.length < limit; k += 1) {
    const startMs = occurrenceStart(first, unit, interval, k);
    if (startMs >= toMs || startMs > repeatEnds) break;
    if (startMs + durationMs > fromMs) out.push({ startMs, endMs: startMs + durationMs });
  }
  return out;
}
