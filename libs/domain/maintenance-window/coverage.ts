import { occurrenceAt, type Occurrence, type WindowTimes } from './calendar.ts';

/** What coverage needs of a window: its scope, its times and whether it pauses runs. */
export interface WindowScope extends WindowTimes {
  id: string;
  tags: readonly string[];
  checkIds: readonly string[];
  pauseRuns: boolean;
}

export interface CoveredCheck {
  id: string;
  tags: readonly string[];
}

/** A window covers a check it names by id, or one that carries any of its tags. */
export function covers(window: Pick<WindowScope, 'tags' | 'checkIds'>, check: CoveredCheck): boolean {
  return window.checkIds.includes(check.id) || window.tags.some((tag) => check.tags.includes(tag));
}

export interface InMaintenance {
  windowId: string;
  occurrence: Occurrence;
  pauseRuns: boolean;
}

/**
 * The window in force for a check at a time, or null. When several are, one that pauses runs wins
 * (it decides more), then the one that ends last.
 */
export function maintenanceAt(
  windows: readonly WindowScope[],
  check: CoveredCheck,
  atMs: number,
): InMaintenance | null {
  let best: InMaintenance | null = null;
  for (const window of windows) {
    if (!covers(window, check)) continue;
    const occurrence = occurrenceAt(window, atMs);
    if (occurrence === null) continue;
    const candidate = { windowId: window.id, occurrence, pauseRuns: window.pauseRuns };
    if (
      best === null ||
      (candidate.pauseRuns && !best.pauseRuns) ||
      (candidate.pauseRuns === best.pauseRuns && occurrence.endMs > best.occurrence.endMs)
    )
      best = candidate;
  }
  return best;
}
