/**
 * The API speaks UTC; people read and type their own clock. These convert between the two for
 * `<input type="datetime-local">` (no zone: the browser's) and format both for display.
 */

const pad = (n: number) => String(n).padStart(2, '0');

/** UTC ISO → the `YYYY-MM-DDTHH:MM` a datetime-local input shows, in the browser's zone. */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local value (the browser's zone) → UTC ISO; '' for an empty or impossible value. */
export function fromLocalInput(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return '';
  // A date-time without an offset is local time (ECMAScript's Date.parse rule for this form).
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? '' : new Date(ms).toISOString();
}

const localFormat = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
});
const localClock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });

/** `Tue, 1 Dec 2026, 23:00 GMT+1`: the browser's zone, named. */
export const formatLocal = (ms: number | string) => localFormat.format(new Date(ms));

/** `2026-12-01 22:00 UTC`. */
export function formatUtc(ms: number | string): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
}

const sameLocalDay = (a: Date, b: Date) => a.toDateString() === b.toDateString();

/** A span in local time: `Tue, 1 Dec 2026, 23:00 – 23:30 GMT+1`, both dates when it crosses midnight. */
export function localSpan(startMs: number, endMs: number): string {
  const start = new Date(startMs);
  const end = new Date(endMs);
  if (!sameLocalDay(start, end)) return `${formatLocal(startMs)} – ${formatLocal(endMs)}`;
  const day = new Intl.DateTimeFormat(undefined, { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric' });
  const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
  return `${day.format(start)}, ${clock.format(start)} – ${localClock.format(end)}`;
}

/** The same span in UTC, for the title and the line beside it. */
export function utcSpan(startMs: number, endMs: number): string {
  const start = formatUtc(startMs);
  const end = formatUtc(endMs);
  return start.slice(0, 10) === end.slice(0, 10) ? `${start.slice(0, 16)}–${end.slice(11)}` : `${start} – ${end}`;
}
