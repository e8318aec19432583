/** Fewest buckets the x axis spans, so a handful of points do not stretch across the whole chart. */
const MIN_BUCKETS = 10;
/** Room left of the earliest thing shown, as a share of what follows it. */
const LEAD = 0.05;

/**
 * The x axis of a response chart, in seconds. It spans the range asked for (so a gap or a
 * maintenance band shows where it falls), except before anything could be drawn: a check with
 * minutes of runs has nothing to show for the 23 hours before, and a fixed 24 h axis squeezed its
 * points into the last pixels on the right. So the axis starts just before the earlier of its
 * first measured bucket and the first band, and never spans fewer than MIN_BUCKETS buckets.
 */
export function axisSpan(input: {
  fromMs: number;
  toMs: number;
  intervalMinutes: number;
  x: readonly number[];
  /** The series on x: the analytics answer fills empty buckets with nulls from the range's start. */
  series: ReadonlyArray<readonly (number | null)[]>;
  bandStartsMs: readonly number[];
}): [number, number] {
  const { fromMs, toMs } = input;
  const firstMeasured = input.x.findIndex((_, i) => input.series.some((values) => values[i] != null));
  // With no measured bucket and no band there is nothing to fit: the whole range shows, empty.
  const earliest = Math.min(firstMeasured < 0 ? fromMs : input.x[firstMeasured]! * 1000, ...input.bandStartsMs);
  const lead = Math.max(0, toMs - earliest) * LEAD;
  const fitted = Math.max(fromMs, Math.min(earliest - lead, toMs - MIN_BUCKETS * input.intervalMinutes * 60_000));
  // A bucket the server placed before our start (its clock is not ours) still shows.
  const start = Math.min(fitted, earliest);
  // Buckets the server placed past our clock's now widen the end; empty ones before the start do not matter.
  return [start / 1000, Math.max(toMs / 1000, input.x.at(-1) ?? 0)];
}
