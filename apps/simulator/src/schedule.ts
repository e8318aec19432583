import type { Run, SimCheck } from './generate.ts';
import type { Rng } from './random.ts';

/**
 * Where runs come from. In real time the target rate decides how often checks run (a load
 * generator at 500/s runs each of 50 checks far more often than its frequency), so checks and
 * locations simply take turns. A backfill instead walks through the past at each check's real
 * frequency, so the history it leaves looks like what the checks would have produced.
 */
export interface RunSource {
  /** Up to `count` runs; fewer, then none, once a finite source is used up. */
  take(count: number, now: number): Run[];
  /** How many runs the source holds, when finite. */
  readonly total: number | null;
}

export function realtimeRuns(checks: readonly SimCheck[]): RunSource {
  const slots = checks.flatMap((check, index) => check.locations.map((location) => ({ check: index, location })));
  if (slots.length === 0) throw new Error('no checks with locations to run');
  let position = 0;
  return {
    total: null,
    take(count, now) {
      const runs: Run[] = [];
      for (let i = 0; i < count; i++) {
        const slot = slots[position++ % slots.length]!;
        runs.push({ ...slot, startedAt: now });
      }
      return runs;
    },
  };
}

const MINUTE = 60_000;

/**
 * Every run of the last `days` days, oldest first, minute by minute: each check runs every
 * `frequency` minutes from a phase of its own (so they do not all fire on the hour), from each
 * of its locations, a few seconds apart.
 */
export function backfillRuns(rng: Rng, checks: readonly SimCheck[], options: { days: number; now: number }): RunSource {
  const minutes = Math.round(options.days * 1440);
  const start = Math.floor(options.now / MINUTE) * MINUTE - minutes * MINUTE;
  const phases = checks.map((check) => rng.int(0, check.frequency - 1));
  const total = checks.reduce(
    (sum, check, index) => sum + check.locations.length * runsIn(minutes, check.frequency, phases[index]!),
    0,
  );
  let minute = 0;
  let pending: Run[] = [];
  return {
    total,
    take(count) {
      while (pending.length < count && minute < minutes) {
        checks.forEach((check, index) => {
          if ((minute + phases[index]!) % check.frequency !== 0) return;
          for (const location of check.locations) {
            pending.push({ check: index, location, startedAt: start + minute * MINUTE + rng.int(0, 59_999) });
          }
        });
        minute++;
      }
      const runs = pending.slice(0, count);
      pending = pending.slice(count);
      return runs;
    },
  };
}

/** How many minutes m in [0, minutes) have (m + phase) divisible by frequency. */
function runsIn(minutes: number, frequency: number, phase: number): number {
  const first = (frequency - (phase % frequency)) % frequency;
  return first < minutes ? Math.floor((minutes - 1 - first) / frequency) + 1 : 0;
}
