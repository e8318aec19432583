/** Linear interpolation between closest ranks (numpy's default) over ascending samples. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  return sorted[lo]! + (h - lo) * (sorted[Math.min(lo + 1, sorted.length - 1)]! - sorted[lo]!);
}

export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
  max: number;
}

export const round = (value: number, digits = 1): number => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};

export function summarise(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
  return {
    n: sorted.length,
    p50: round(percentile(sorted, 0.5)),
    p90: round(percentile(sorted, 0.9)),
    p99: round(percentile(sorted, 0.99)),
    mean: round(mean),
    max: round(sorted[sorted.length - 1] ?? NaN),
  };
}

/** a / b, rounded; what every figure is reported as beside its ceiling or baseline. */
export const ratio = (a: number, b: number, digits = 2): number => round(a / b, digits);

/** Runs work sequentially: a few warm-ups, then `iterations` timed runs (ms). */
export async function timeIt(iterations: number, work: (i: number) => Promise<unknown>, warmup = 3): Promise<Summary> {
  for (let i = 0; i < warmup; i++) await work(-1 - i);
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await work(i);
    samples.push(performance.now() - started);
  }
  return summarise(samples);
}

/** The suites' seeded generator (mulberry32), so every engine and run gets the same data. */
export { seeded } from '../../test/support/random.ts';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
