import { ValidationError } from '#core';

export const QUICK_RANGES = [
  'last24Hours',
  'last7Days',
  'last30Days',
  'thisWeek',
  'thisMonth',
  'lastWeek',
  'lastMonth',
] as const;
export type QuickRange = (typeof QUICK_RANGES)[number];

/** A reporting window, [from, to): runs starting at `from` count, runs starting at `to` do not. */
export interface TimeWindow {
  from: Date;
  to: Date;
}

export const MAX_BUCKETS = 10_000;
export const MIN_INTERVAL_MINUTES = 1;
export const MAX_INTERVAL_MINUTES = 43_200;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Results start between 2000 and 2100 (the check-result contract); windows stay near that.
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(2100, 0, 1);

/**
 * The window a quick range names at `now`. Calendar ranges are UTC and weeks start on Monday;
 * "this" ranges end at now, "last" ranges end where the current period starts.
 */
export function quickRangeWindow(range: QuickRange, now: Date): TimeWindow {
  const end = now.getTime();
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  // getUTCDay: Sunday 0 … Saturday 6; days since Monday: Monday 0 … Sunday 6.
  const monday = midnight - ((now.getUTCDay() + 6) % 7) * DAY;
  const firstOfMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  switch (range) {
    case 'last24Hours':
      return window(end - DAY, end);
    case 'last7Days':
      return window(end - 7 * DAY, end);
    case 'last30Days':
      return window(end - 30 * DAY, end);
    case 'thisWeek':
      return window(monday, end);
    case 'thisMonth':
      return window(firstOfMonth, end);
    case 'lastWeek':
      return window(monday - 7 * DAY, monday);
    case 'lastMonth':
      // Date.UTC rolls month -1 back into December of the previous year.
      return window(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1), firstOfMonth);
  }
}

function window(from: number, to: number): TimeWindow {
  return { from: new Date(from), to: new Date(to) };
}

// Whole seconds only: a fraction such as 0.5 is far more likely a mistake than a wanted instant.
const UNIX_SECONDS = /^\d{1,16}$/;
// A date, or a date and time with seconds optional, fraction optional and Z or an offset.
const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/** Parses `from` or `to`: whole unix seconds or ISO 8601 (a date alone is UTC midnight). Anything else is a 400. */
export function parseInstant(value: string, parameter: string): Date {
  let ms: number;
  if (UNIX_SECONDS.test(value)) {
    ms = Math.round(Number(value) * 1000);
    if (ms >= LATEST && value.length >= 13) {
      throw new ValidationError(`${parameter}: ${value} looks like milliseconds; pass unix seconds or ISO 8601`);
    }
  } else if (ISO.test(value)) {
    // Date.parse rolls 2024-02-30 over into March; a day the month does not have is refused.
    if (!isCalendarDate(value.slice(0, 10)))
      throw new ValidationError(`${parameter}: "${value}" is not a valid date (no such day)`);
    ms = Date.parse(value);
  } else {
    throw new ValidationError(
      `${parameter}: expected whole unix seconds (e.g. 1717200000) or ISO 8601 (e.g. 2024-06-01T00:00:00Z), got ${JSON.stringify(value.slice(0, 64))}`,
    );
  }
  if (!Number.isFinite(ms)) throw new ValidationError(`${parameter}: "${value}" is not a valid date`);
  if (ms < EARLIEST || ms >= LATEST) throw new ValidationError(`${parameter}: must be between 1970 and 2100`);
  return new Date(ms);
}

function isCalendarDate(date: string): boolean {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const parsed = new Date(Date.UTC(year, month - 1, day));
  return parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day;
}

/**
 * The reporting window: from and to when given (they override quickRange; from alone runs to
 * now), else the quick range (default last24Hours).
 */
export function resolveWindow(input: { from?: string; to?: string; quickRange?: string }, now: Date): TimeWindow {
  if (input.quickRange !== undefined && !(QUICK_RANGES as readonly string[]).includes(input.quickRange)) {
    throw new ValidationError(`quickRange: must be one of ${QUICK_RANGES.join(', ')}, got "${input.quickRange}"`);
  }
  if (input.to !== undefined && input.from === undefined) {
    throw new ValidationError('from: required when to is given (from and to together override quickRange)');
  }
  if (input.from === undefined)
    return quickRangeWindow((input.quickRange as QuickRange | undefined) ?? 'last24Hours', now);
  const from = parseInstant(input.from, 'from');
  const to = input.to === undefined ? now : parseInstant(input.to, 'to');
  if (from.getTime() >= to.getTime()) {
    throw new ValidationError(`from: must be before to (from ${from.toISOString()}, to ${to.toISOString()})`);
  }
  return { from, to };
}

/**
 * Bucket starts, in ms, for an interval: aligned to the epoch, from the bucket holding `from`
 * to the one holding the last instant before `to`. The first and last buckets may be partial.
 */
export function bucketStarts(window: TimeWindow, intervalMinutes: number): number[] {
  const size = intervalMinutes * 60_000;
  const first = Math.floor(window.from.getTime() / size) * size;
  const count = bucketCount(window, intervalMinutes);
  return Array.from({ length: count }, (_, i) => first + i * size);
}

export function bucketCount(window: TimeWindow, intervalMinutes: number): number {
  const size = intervalMinutes * 60_000;
  const first = Math.floor(window.from.getTime() / size);
  const last = Math.floor((window.to.getTime() - 1) / size);
  return last - first + 1;
}

/** Checks the interval and that the window does not need more than MAX_BUCKETS buckets. */
export function checkInterval(window: TimeWindow, intervalMinutes: number): void {
  const count = bucketCount(window, intervalMinutes);
  if (count <= MAX_BUCKETS) return;
  // The smallest whole number of minutes that fits this window.
  const spanMinutes = (window.to.getTime() - window.from.getTime()) / 60_000;
  let suggestion = Math.max(intervalMinutes + 1, Math.ceil(spanMinutes / (MAX_BUCKETS - 1)));
  while (bucketCount(window, suggestion) > MAX_BUCKETS) suggestion++;
  throw new ValidationError(
    `aggregationInterval: ${intervalMinutes} minutes gives ${count} buckets in this window, more than ${MAX_BUCKETS}; use a larger interval, at least ${suggestion} minutes`,
  );
}
