import type { Sample } from './sampler.ts';
import type { OpCounts } from './traffic.ts';

export interface Growth {
  app: string;
  startMiB: number | null;
  /** The first sample at or after the baseline second (minute 3 by default). */
  baselineMiB: number | null;
  endMiB: number | null;
  growthPct: number | null;
  maxAfterBaselineMiB: number | null;
  /**
   * Least-squares slope of RSS over the samples after the baseline, in MiB per minute: GC makes
   * single samples saw-tooth, a leak shows as a trend. Reported beside the verdict, not in it.
   */
  trendMiBPerMin: number | null;
  /** Over the samples: the highest per-interval p99, and the median of them. */
  loopP99MaxMs: number | null;
  loopP99MedianMs: number | null;
}

export interface Loss {
  acknowledged: number;
  storedFinal: number;
  distinctIds: number;
  missing: number;
  expectedWebhooks: number;
  deliveredWebhooks: number;
}

export interface Verdict {
  pass: boolean;
  reasons: string[];
  growth: Growth[];
  serverErrors: number;
  networkErrors: number;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function slopePerMinute(points: Array<[seconds: number, value: number]>): number | null {
  if (points.length < 3) return null;
  const n = points.length;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const sxx = points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  const sxy = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0);
  return sxx === 0 ? null : Math.round((sxy / sxx) * 60 * 100) / 100;
}

/** RSS from the baseline sample to the last one, per process. */
export function growthOf(samples: readonly Sample[], baselineSecond: number): Growth[] {
  const apps = [...new Set(samples.map((s) => s.app))];
  return apps.map((app) => {
    const mine = samples.filter((s) => s.app === app).sort((a, b) => a.t - b.t);
    const baseline = mine.find((s) => s.t >= baselineSecond && s.rssMiB !== null);
    const end = [...mine].reverse().find((s) => s.rssMiB !== null);
    const afterSamples = mine.filter((s) => s.t >= baselineSecond && s.rssMiB !== null);
    const after = afterSamples.map((s) => s.rssMiB!);
    const loops = mine.map((s) => s.loopP99Ms).filter((v): v is number => v !== null);
    const growthPct =
      baseline?.rssMiB && end?.rssMiB !== null && end && end.t > baseline.t
        ? round1(((end.rssMiB! - baseline.rssMiB) / baseline.rssMiB) * 100)
        : null;
    return {
      app,
      startMiB: mine.find((s) => s.rssMiB !== null)?.rssMiB ?? null,
      baselineMiB: baseline?.rssMiB ?? null,
      endMiB: end?.rssMiB ?? null,
      growthPct,
      maxAfterBaselineMiB: after.length ? Math.max(...after) : null,
      trendMiBPerMin: slopePerMinute(afterSamples.map((s) => [s.t, s.rssMiB!])),
      loopP99MaxMs: loops.length ? Math.max(...loops) : null,
      loopP99MedianMs: median(loops),
    };
  });
}

/**
 * Pass when every process's RSS grew less than `maxGrowthPct` from the baseline to the end, and
 * nothing was lost: every acknowledged result stored exactly once, every expected webhook id
 * delivered, no 5xx and no failed connection to the API.
 */
export function decide(input: {
  samples: readonly Sample[];
  baselineSecond: number;
  maxGrowthPct: number;
  loss: Loss;
  counts: OpCounts;
  /** Processes that exited before the end, with how. */
  exited?: string[];
}): Verdict {
  const reasons: string[] = (input.exited ?? []).map((what) => `${what} exited during the soak`);
  const growth = growthOf(input.samples, input.baselineSecond);
  for (const g of growth) {
    if (g.growthPct === null)
      reasons.push(`${g.app}: no RSS samples from second ${input.baselineSecond} to the end to compare`);
    else if (g.growthPct >= input.maxGrowthPct)
      reasons.push(
        `${g.app}: RSS grew ${g.growthPct}% (${g.baselineMiB} → ${g.endMiB} MiB) after second ${input.baselineSecond}`,
      );
  }
  const { loss } = input;
  if (loss.missing > 0) reasons.push(`${loss.missing} acknowledged results are not in ClickHouse`);
  if (loss.storedFinal !== loss.acknowledged || loss.distinctIds !== loss.acknowledged)
    reasons.push(
      `ClickHouse holds ${loss.storedFinal} rows (${loss.distinctIds} distinct ids) for ${loss.acknowledged} acknowledged results`,
    );
  if (loss.deliveredWebhooks < loss.expectedWebhooks)
    reasons.push(
      `${loss.expectedWebhooks - loss.deliveredWebhooks} of ${loss.expectedWebhooks} webhook ids never arrived`,
    );
  if (loss.expectedWebhooks === 0) reasons.push('no alert webhooks were expected: the soak did not exercise alerting');
  let serverErrors = 0;
  let networkErrors = 0;
  for (const [op, row] of Object.entries(input.counts)) {
    if (row['5xx']) reasons.push(`${row['5xx']} × 5xx on ${op}`);
    if (row.error) reasons.push(`${row.error} failed connections on ${op}`);
    serverErrors += row['5xx'] ?? 0;
    networkErrors += row.error ?? 0;
  }
  return { pass: reasons.length === 0, reasons, growth, serverErrors, networkErrors };
}
