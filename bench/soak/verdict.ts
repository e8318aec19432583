import type { Sample } from './sampler.ts';
import type { Incident } from './traffic.ts';
import type { Outage } from './watch.ts';

/** An answer this close to an outage of a backing service is put down to the outage. */
export const OUTAGE_GRACE_MS = 10_000;

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
  missing: number;
  /** Rows after de-duplication and distinct ids: a difference is a result stored twice. */
  rowsFinal: number;
  distinctIds: number;
  expectedWebhooks: number;
  deliveredWebhooks: number;
}

export interface Verdict {
  pass: boolean;
  reasons: string[];
  growth: Growth[];
  serverErrors: number;
  networkErrors: number;
  /** 5xx and failed connections while a backing service was down (another suite stopped it): not failures. */
  duringOutages: number;
  notes: string[];
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
 * delivered, no 5xx and no failed connection to the API, except while a backing service was down
 * (a 503 is then the right answer; such a run is named as disturbed).
 */
export function decide(input: {
  samples: readonly Sample[];
  baselineSecond: number;
  maxGrowthPct: number;
  loss: Loss;
  incidents: readonly Incident[];
  outages?: readonly Outage[];
  /** Processes that exited before the end, with how. */
  exited?: string[];
}): Verdict {
  const reasons: string[] = (input.exited ?? []).map((what) => `${what} exited during the soak`);
  const notes: string[] = [];
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
  if (loss.rowsFinal !== loss.distinctIds)
    reasons.push(
      `ClickHouse holds ${loss.rowsFinal} rows after de-duplication for ${loss.distinctIds} distinct results`,
    );
  if (loss.deliveredWebhooks < loss.expectedWebhooks)
    reasons.push(
      `${loss.expectedWebhooks - loss.deliveredWebhooks} of ${loss.expectedWebhooks} webhook ids never arrived`,
    );
  if (loss.expectedWebhooks === 0) reasons.push('no alert webhooks were expected: the soak did not exercise alerting');
  const outages = input.outages ?? [];
  const inOutage = (at: number) => outages.some((o) => at >= o.from - OUTAGE_GRACE_MS && at <= o.to + OUTAGE_GRACE_MS);
  const unexplained = new Map<string, { server: number; network: number }>();
  let duringOutages = 0;
  let serverErrors = 0;
  let networkErrors = 0;
  for (const incident of input.incidents) {
    if (incident.status === 'error') networkErrors++;
    else serverErrors++;
    if (inOutage(incident.at)) {
      duringOutages++;
      continue;
    }
    const row = unexplained.get(incident.op) ?? { server: 0, network: 0 };
    if (incident.status === 'error') row.network++;
    else row.server++;
    unexplained.set(incident.op, row);
  }
  for (const [op, row] of unexplained) {
    if (row.server) reasons.push(`${row.server} × 5xx on ${op}`);
    if (row.network) reasons.push(`${row.network} failed connections on ${op}`);
  }
  for (const o of outages)
    notes.push(
      `${o.service} refused connections from ${new Date(o.from).toISOString()} to ${new Date(o.to).toISOString()} (stopped outside the soak)`,
    );
  if (duringOutages > 0) notes.push(`${duringOutages} 5xx answers or failed connections fell within those outages`);
  return { pass: reasons.length === 0, reasons, growth, serverErrors, networkErrors, duringOutages, notes };
}
