import { raw } from './api.ts';
import type { Check, MaintenanceWindow } from './api.gen.ts';
import { occurrencesBetween, type Occurrence } from './calendar.ts';

export type { MaintenanceWindow };

/** Every window of the account (lists are paged at 100; the rest load in parallel). */
export async function allWindows(): Promise<MaintenanceWindow[]> {
  const first = await raw('GET', '/v1/maintenance-windows?limit=100&page=1');
  const pages = Math.ceil(Number(first.headers.get('x-total-count') ?? 0) / 100);
  const rest = await Promise.all(
    Array.from({ length: Math.max(0, pages - 1) }, (_, i) =>
      raw('GET', `/v1/maintenance-windows?limit=100&page=${i + 2}`),
    ),
  );
  return [first, ...rest].flatMap((r) => r.body as MaintenanceWindow[]);
}

/** The server's rule (libs/domain coverage.ts): named by id, or any of the check's own tags. */
export function covers(window: MaintenanceWindow, check: Pick<Check, 'id' | 'tags'>): boolean {
  return window.checkIds.includes(check.id) || window.tags.some((tag) => check.tags.includes(tag));
}

export interface Band extends Occurrence {
  name: string;
  pauseRuns: boolean;
}

/** The occurrences of the windows covering a check that overlap [fromMs, toMs), oldest first. */
export function bandsFor(
  windows: readonly MaintenanceWindow[],
  check: Pick<Check, 'id' | 'tags'>,
  fromMs: number,
  toMs: number,
): Band[] {
  return windows
    .filter((w) => covers(w, check))
    .flatMap((w) =>
      occurrencesBetween(w, fromMs, toMs, 200).map((o) => ({ ...o, name: w.name, pauseRuns: w.pauseRuns })),
    )
    .sort((a, b) => a.startMs - b.startMs);
}

/** `Every 2 weeks until …`, or `Once`. */
export function repeatLabel(window: MaintenanceWindow, until: (iso: string) => string): string {
  if (!window.repeatUnit || !window.repeatInterval) return 'Once';
  const unit = window.repeatUnit.toLowerCase();
  const every = window.repeatInterval === 1 ? `Every ${unit}` : `Every ${window.repeatInterval} ${unit}s`;
  return window.repeatEndsAt ? `${every} until ${until(window.repeatEndsAt)}` : every;
}

/** The next occurrence that has not ended (the current one while active), or null when it is over. */
export function nextOccurrence(window: MaintenanceWindow, nowMs: number): Occurrence | null {
  // Up to the API's last year: the search starts at the occurrence in force at nowMs, so it costs the same.
  return occurrencesBetween(window, nowMs, Date.UTC(2200, 0, 1), 1)[0] ?? null;
}
