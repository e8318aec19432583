import type { SeriesEntry } from '#analytics';
import type { ReferenceEntry } from './reference.ts';

/**
 * Differences between a reader answer and the reference, one line each, so a failing test shows
 * every mismatch at once. Numbers agree when within `relative` of the reference (with a 1e-9
 * floor for values that should be 0); everything else must be equal.
 */
export function seriesDifferences(
  actual: SeriesEntry[],
  expected: ReferenceEntry[],
  groupBy: string | undefined,
  relative: number,
): string[] {
  const problems: string[] = [];
  if (actual.length !== expected.length) problems.push(`series: ${actual.length} entries, expected ${expected.length}`);
  expected.forEach((want, i) => {
    const got = actual[i];
    if (!got) return;
    if (groupBy !== undefined && got[groupBy] !== want.key)
      problems.push(`series[${i}].${groupBy}: ${String(got[groupBy])}, expected ${String(want.key)}`);
    if (groupBy === 'pageIndex' && got.pageUrl !== want.pageUrl)
      problems.push(`series[${i}].pageUrl: ${String(got.pageUrl)}, expected ${want.pageUrl}`);
    problems.push(...pointDifferences(got.data, want.data, `series[${i}]`, relative));
  });
  return problems;
}

export function pointDifferences(
  actual: Record<string, unknown>[],
  expected: Record<string, unknown>[],
  where: string,
  relative: number,
): string[] {
  const problems: string[] = [];
  if (actual.length !== expected.length)
    problems.push(`${where}.data: ${actual.length} points, expected ${expected.length}`);
  expected.forEach((want, j) => {
    const got = actual[j] ?? {};
    const keys = new Set([...Object.keys(want), ...Object.keys(got)]);
    for (const key of keys) {
      if (!close(got[key], want[key], relative))
        problems.push(`${where}.data[${j}].${key}: ${String(got[key])}, expected ${String(want[key])}`);
    }
  });
  return problems;
}

function close(got: unknown, want: unknown, relative: number): boolean {
  if (typeof want !== 'number' || typeof got !== 'number') return got === want;
  return Math.abs(got - want) <= Math.max(relative * Math.abs(want), 1e-9);
}

/**
 * Differences between two answers' series, one line each: the same entries, keys and points,
 * numbers within `relative` of each other (summation order differs between engines and memory).
 */
export function answerDifferences(actual: SeriesEntry[], expected: SeriesEntry[], relative: number): string[] {
  const problems: string[] = [];
  if (actual.length !== expected.length) problems.push(`series: ${actual.length} entries, expected ${expected.length}`);
  expected.forEach((want, i) => {
    const got = actual[i];
    if (!got) return;
    for (const key of Object.keys(want))
      if (key !== 'data' && got[key] !== want[key])
        problems.push(`series[${i}].${key}: ${String(got[key])}, expected ${String(want[key])}`);
    problems.push(...pointDifferences(got.data, want.data, `series[${i}]`, relative));
  });
  return problems;
}
