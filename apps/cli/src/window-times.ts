/**
 * Times of maintenance windows as the CLI reads and prints them. The API speaks UTC only; people
 * write times in their own zone, so any ISO 8601 time with an offset is accepted and turned into
 * UTC here, and every time is printed in UTC with the zone named.
 */

const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)$/i;

/** An ISO 8601 time with an offset (`2026-12-01T22:00Z`, `2026-12-01 23:00+01:00`) as UTC, or an error message. */
export function toUtc(raw: string): { utc: string } | { error: string } {
  const text = raw.trim();
  const match = ISO_WITH_OFFSET.exec(text);
  if (!match) {
    const local = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?$/.test(text);
    return {
      error: local
        ? `"${raw}" has no time zone: add Z for UTC or an offset such as +01:00 (e.g. ${text.length === 10 ? `${text}T00:00` : text.replace(' ', 'T')}Z)`
        : `"${raw}" is not an ISO 8601 time such as 2026-12-01T22:00Z or 2026-12-01T23:00+01:00`,
    };
  }
  const [year, month, date, hour, minute, second = 0] = match.slice(1, 7).map((part) => Number(part ?? 0));
  // Date.parse rolls 30 February over into March; a date the calendar lacks is a typo, not a wish.
  const calendar = new Date(Date.UTC(year!, month! - 1, date!));
  const real = calendar.getUTCMonth() === month! - 1 && calendar.getUTCDate() === date;
  if (!real || hour! > 23 || minute! > 59 || second! > 59) return { error: `"${raw}" is not a real date and time` };
  let zone = match[8]!.toUpperCase();
  if (zone !== 'Z') zone = zone.length === 3 ? `${zone}:00` : zone.replace(/^([+-]\d{2}):?(\d{2})$/, '$1:$2');
  const iso = `${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6] ?? '00'}${match[7] ?? ''}${zone}`;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return { error: `"${raw}" is not a real date and time` };
  return { utc: new Date(ms).toISOString() };
}

const DURATION_UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30m`, `2h`, `1h30m`, `1d`, `90s` (a bare number is minutes) in milliseconds, or undefined. */
export function durationMs(raw: string): number | undefined {
  const text = raw.trim().toLowerCase();
  if (/^\d+$/.test(text)) return Number(text) * DURATION_UNITS.m!;
  if (!/^(\d+\s*[smhdw]\s*)+$/.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)\s*([smhdw])/g)) total += Number(amount) * DURATION_UNITS[unit!]!;
  return total > 0 ? total : undefined;
}

export interface WindowWhen {
  startsAt: string;
  endsAt: string;
  repeatInterval?: number | null;
  repeatUnit?: string | null;
  repeatEndsAt?: string | null;
}

const pad = (n: number) => String(n).padStart(2, '0');
const day = (d: Date) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
const clock = (d: Date) =>
  `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}${d.getUTCSeconds() !== 0 ? `:${pad(d.getUTCSeconds())}` : ''}`;

/** `2026-12-01 22:00 UTC`: a time as the CLI prints it. */
export function utcLabel(iso: string): string {
  const d = new Date(iso);
  return `${day(d)} ${clock(d)} UTC`;
}

/**
 * When a window is in force, in one line: `2026-12-01 22:00–22:30 UTC, every 1 week`, or
 * `2026-12-01 23:00 – 2026-12-02 01:00 UTC` when it crosses midnight, with `until …` when the
 * repeats end.
 */
export function describeWhen(window: WindowWhen): string {
  const start = new Date(window.startsAt);
  const end = new Date(window.endsAt);
  const span =
    day(start) === day(end)
      ? `${day(start)} ${clock(start)}–${clock(end)} UTC`
      : `${day(start)} ${clock(start)} – ${day(end)} ${clock(end)} UTC`;
  if (!window.repeatUnit || !window.repeatInterval) return span;
  const unit = window.repeatUnit.toLowerCase();
  const every = `every ${window.repeatInterval} ${unit}${window.repeatInterval === 1 ? '' : 's'}`;
  return window.repeatEndsAt ? `${span}, ${every} until ${utcLabel(window.repeatEndsAt)}` : `${span}, ${every}`;
}
