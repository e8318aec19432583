/**
 * The small part of moment.js that webhook templates need: formatting with moment's tokens and
 * a few relative expressions ("2 days ago", "last week", "in 3 hours", "yesterday").
 * Everything is in UTC: a server has no meaningful local zone, and receivers compare instants.
 */

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** moment's default format when none is given: ISO 8601 to the second. */
export const DEFAULT_MOMENT_FORMAT = 'YYYY-MM-DDTHH:mm:ssZ';

// Longest tokens first, so that "MMMM" is not read as four "M"s. "[...]" is literal text, as in moment.
const TOKENS = /\[([^\]]*)]|YYYY|YY|Q|MMMM|MMM|MM|M|Do|DDDD|DD|D|dddd|ddd|d|HH|H|hh|h|mm|m|ss|s|SSS|SS|S|A|a|ZZ|Z|X|x/g;

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

function ordinal(day: number): string {
  const tens = day % 100;
  if (tens >= 11 && tens <= 13) return `${day}th`;
  return `${day}${['th', 'st', 'nd', 'rd'][day % 10] ?? 'th'}`;
}

function dayOfYear(date: Date): number {
  return Math.floor((date.getTime() - Date.UTC(date.getUTCFullYear(), 0, 1)) / 86_400_000) + 1;
}

function token(date: Date, name: string): string {
  const hours = date.getUTCHours();
  switch (name) {
    case 'YYYY':
      return pad(date.getUTCFullYear(), 4);
    case 'YY':
      return pad(date.getUTCFullYear() % 100);
    case 'Q':
      return String(Math.floor(date.getUTCMonth() / 3) + 1);
    case 'MMMM':
      return MONTHS[date.getUTCMonth()] ?? '';
    case 'MMM':
      return (MONTHS[date.getUTCMonth()] ?? '').slice(0, 3);
    case 'MM':
      return pad(date.getUTCMonth() + 1);
    case 'M':
      return String(date.getUTCMonth() + 1);
    case 'Do':
      return ordinal(date.getUTCDate());
    case 'DDDD':
      return pad(dayOfYear(date), 3);
    case 'DD':
      return pad(date.getUTCDate());
    case 'D':
      return String(date.getUTCDate());
    case 'dddd':
      return WEEKDAYS[date.getUTCDay()] ?? '';
    case 'ddd':
      return (WEEKDAYS[date.getUTCDay()] ?? '').slice(0, 3);
    case 'd':
      return String(date.getUTCDay());
    case 'HH':
      return pad(hours);
    case 'H':
      return String(hours);
    case 'hh':
      return pad(hours % 12 || 12);
    case 'h':
      return String(hours % 12 || 12);
    case 'mm':
      return pad(date.getUTCMinutes());
    case 'm':
      return String(date.getUTCMinutes());
    case 'ss':
      return pad(date.getUTCSeconds());
    case 's':
      return String(date.getUTCSeconds());
    case 'SSS':
      return pad(date.getUTCMilliseconds(), 3);
    case 'SS':
      return pad(Math.floor(date.getUTCMilliseconds() / 10));
    case 'S':
      return String(Math.floor(date.getUTCMilliseconds() / 100));
    case 'A':
      return hours < 12 ? 'AM' : 'PM';
    case 'a':
      return hours < 12 ? 'am' : 'pm';
    case 'ZZ':
      return '+0000';
    case 'Z':
      return '+00:00';
    case 'X':
      return String(Math.floor(date.getTime() / 1000));
    case 'x':
      return String(date.getTime());
    default:
      return name;
  }
}

/** Formats a date with moment.js format tokens, in UTC. An invalid date gives "Invalid date", as moment does. */
export function formatMoment(date: Date, format: string = DEFAULT_MOMENT_FORMAT): string {
  if (Number.isNaN(date.getTime())) return 'Invalid date';
  return format.replace(TOKENS, (match, literal: string | undefined) =>
    literal !== undefined ? literal : token(date, match),
  );
}

type Unit = 'ms' | 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year';

const UNIT_ALIASES: Record<string, Unit> = {
  ms: 'ms',
  millisecond: 'ms',
  milliseconds: 'ms',
  s: 'second',
  sec: 'second',
  secs: 'second',
  second: 'second',
  seconds: 'second',
  m: 'minute',
  min: 'minute',
  mins: 'minute',
  minute: 'minute',
  minutes: 'minute',
  h: 'hour',
  hr: 'hour',
  hrs: 'hour',
  hour: 'hour',
  hours: 'hour',
  d: 'day',
  day: 'day',
  days: 'day',
  w: 'week',
  week: 'week',
  weeks: 'week',
  month: 'month',
  months: 'month',
  y: 'year',
  yr: 'year',
  yrs: 'year',
  year: 'year',
  years: 'year',
};

const UNIT_MS: Record<Exclude<Unit, 'month' | 'year'>, number> = {
  ms: 1,
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
};

/** Adds calendar months the way moment does: Jan 31 + 1 month is the last day of February. */
function addMonths(date: Date, months: number): Date {
  const result = new Date(date.getTime());
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, lastDay));
  return result;
}

function shift(now: Date, amount: number, unit: Unit): Date {
  if (unit === 'month') return addMonths(now, amount);
  if (unit === 'year') return addMonths(now, amount * 12);
  return new Date(now.getTime() + amount * UNIT_MS[unit]);
}

function quantity(text: string): number | undefined {
  if (text === 'a' || text === 'an' || text === 'one') return 1;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

const NUMBER = '(\\d+(?:\\.\\d+)?|an?|one)';
const UNIT = '([a-z]+)';
const RELATIVE_FORMS: Array<{ pattern: RegExp; sign: 1 | -1 }> = [
  { pattern: new RegExp(`^${NUMBER}\\s*${UNIT}\\s+ago$`), sign: -1 },
  { pattern: new RegExp(`^in\\s+${NUMBER}\\s*${UNIT}$`), sign: 1 },
  { pattern: new RegExp(`^${NUMBER}\\s*${UNIT}\\s+from\\s+now$`), sign: 1 },
  { pattern: new RegExp(`^\\+\\s*${NUMBER}\\s*${UNIT}$`), sign: 1 },
  { pattern: new RegExp(`^-\\s*${NUMBER}\\s*${UNIT}$`), sign: -1 },
];

/**
 * Resolves a relative expression against now: "now", "today", "yesterday", "tomorrow",
 * "N units ago", "in N units", "N units from now", "+N units", "-N units", "last unit",
 * "next unit". Units run from milliseconds to years. Returns undefined for anything else.
 */
export function parseRelative(expression: string, now: Date): Date | undefined {
  const text = expression.trim().toLowerCase().replace(/\s+/g, ' ');
  if (text === 'now' || text === 'today') return new Date(now.getTime());
  if (text === 'yesterday') return shift(now, -1, 'day');
  if (text === 'tomorrow') return shift(now, 1, 'day');

  const lastOrNext = /^(last|next|previous) ([a-z]+)$/.exec(text);
  if (lastOrNext) {
    const unit = UNIT_ALIASES[lastOrNext[2] ?? ''];
    return unit ? shift(now, lastOrNext[1] === 'next' ? 1 : -1, unit) : undefined;
  }
  for (const { pattern, sign } of RELATIVE_FORMS) {
    const match = pattern.exec(text);
    if (!match) continue;
    const amount = quantity(match[1] ?? '');
    const unit = UNIT_ALIASES[match[2] ?? ''];
    if (amount === undefined || unit === undefined) return undefined;
    return shift(now, sign * amount, unit);
  }
  return undefined;
}

/**
 * What the first argument of a two-argument `moment` may be: a relative expression, a Date,
 * epoch milliseconds, or a date string (such as STARTED_AT). Unreadable input is an invalid date.
 */
export function resolveMomentInput(input: unknown, now: Date): Date {
  if (input instanceof Date) return input;
  if (typeof input === 'number') return new Date(input);
  if (typeof input !== 'string') return new Date(Number.NaN);
  const relative = parseRelative(input, now);
  if (relative) return relative;
  // Only ISO-like strings: Date.parse accepts many loose forms whose meaning depends on the host.
  const iso = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?)?$/i.exec(
    input.trim(),
  );
  if (!iso) return new Date(Number.NaN);
  // A time without an offset is read as UTC, never as the server's local time.
  return new Date(`${iso[1]}T${iso[2] ?? '00:00:00'}${iso[3] ?? 'Z'}`);
}
