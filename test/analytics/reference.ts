import type { CheckResult, ResultCheckType } from '#domain';

/**
 * The reference answer for the analytics contract suite, computed in plain TypeScript from the
 * generated results. It shares no code with the reader: its own metric table, its own grouping
 * and bucketing, numpy's default percentile (linear interpolation between closest ranks) and the
 * population standard deviation.
 */
type Page = NonNullable<CheckResult['pages']>[number];
type Sample = { run: (r: CheckResult) => number | undefined } | { page: (p: Page) => number | undefined };

const http: Record<string, Sample> = {
  responseTime: { run: (r) => r.responseTime },
  wait: { run: (r) => r.timings?.wait },
  dns: { run: (r) => r.timings?.dns },
  tcp: { run: (r) => r.timings?.tcp },
  firstByte: { run: (r) => r.timings?.firstByte },
  download: { run: (r) => r.timings?.download },
};
const total: Sample = { run: (r) => r.timings?.total ?? r.responseTime };

export const referenceBases: Record<ResultCheckType, Record<string, Sample>> = {
  API: http,
  URL: http,
  BROWSER: {
    responseTime: { run: (r) => r.responseTime },
    TTFB: { page: (p) => p.TTFB },
    FCP: { page: (p) => p.FCP },
    LCP: { page: (p) => p.LCP },
    CLS: { page: (p) => p.CLS },
    TBT: { page: (p) => p.TBT },
    consoleErrors: { page: (p) => p.consoleErrors },
    networkErrors: { page: (p) => p.networkErrors },
    userScriptErrors: { page: (p) => p.userScriptErrors },
    documentErrors: { page: (p) => p.documentErrors },
  },
  MULTI_STEP: { responseTime: { run: (r) => r.responseTime } },
  PLAYWRIGHT: { responseTime: { run: (r) => r.responseTime } },
  TCP: {
    total,
    dns: { run: (r) => r.timings?.dns },
    connection: { run: (r) => r.timings?.connection },
    data: { run: (r) => r.timings?.data },
  },
  DNS: { total },
  HEARTBEAT: {},
};

export const SUFFIXES = ['avg', 'max', 'median', 'min', 'p50', 'p90', 'p95', 'p99', 'stddev', 'sum'];

export function everyAggregatedMetric(type: ResultCheckType): string[] {
  return [
    'availability',
    'retries',
    ...Object.keys(referenceBases[type]).flatMap((base) => SUFFIXES.map((suffix) => `${base}_${suffix}`)),
  ];
}

/** numpy.percentile(values, 100 * q), method 'linear'. */
export function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

function aggregate(values: number[], suffix: string): number | null {
  if (values.length === 0) return null;
  const sum = values.reduce((a, b) => a + b, 0);
  const mean = sum / values.length;
  switch (suffix) {
    case 'avg':
      return mean;
    case 'sum':
      return sum;
    case 'min':
      return Math.min(...values);
    case 'max':
      return Math.max(...values);
    case 'stddev':
      return Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / values.length);
    case 'median':
    case 'p50':
      return percentile(values, 0.5);
    default:
      return percentile(values, Number(suffix.slice(1)) / 100);
  }
}

export interface ReferenceQuery {
  type: ResultCheckType;
  from: number;
  to: number;
  metrics: string[];
  interval?: number;
  groupBy?: 'runLocation' | 'statusCode' | 'pageIndex';
  statuses?: string[];
  limit?: number;
  page?: number;
}

type Point = Record<string, number | string | null>;
export interface ReferenceEntry {
  key?: string | number | null;
  pageUrl?: string;
  data: Point[];
}

/** A run or one page of a run, with the group it falls in. */
interface Unit {
  run: CheckResult;
  pages: Page[];
  group: string | number | null;
}

export function referenceAggregate(results: CheckResult[], q: ReferenceQuery): ReferenceEntry[] {
  const runs = results.filter((r) => inQuery(r, q));
  const units: Unit[] =
    q.groupBy === 'pageIndex'
      ? runs.flatMap((run) => (run.pages ?? []).map((page) => ({ run, pages: [page], group: page.index })))
      : runs.map((run) => ({
          run,
          pages: run.pages ?? [],
          group:
            q.groupBy === 'runLocation' ? run.runLocation : q.groupBy === 'statusCode' ? (run.statusCode ?? null) : 0,
        }));
  const groups = q.groupBy === undefined ? [0] : [...new Set(units.map((u) => u.group))].sort(compare);
  const size = (q.interval ?? 0) * 60_000;
  const buckets: number[] = [];
  if (size > 0) for (let b = Math.floor(q.from / size) * size; b < q.to; b += size) buckets.push(b);
  const limit = q.limit ?? 10;
  const first = ((q.page ?? 1) - 1) * limit;
  return groups.slice(first, first + limit).map((group) => {
    const mine = units.filter((u) => u.group === group);
    const data = (size > 0 ? buckets : [null]).map((bucket) => {
      const here =
        bucket === null ? mine : mine.filter((u) => Math.floor(Date.parse(u.run.startedAt) / size) * size === bucket);
      const point: Point = bucket === null ? {} : { timestamp: new Date(bucket).toISOString() };
      for (const metric of q.metrics) point[metric] = metricValue(q.type, metric, here);
      return point;
    });
    const entry: ReferenceEntry = { data };
    if (q.groupBy !== undefined) entry.key = group;
    if (q.groupBy === 'pageIndex') {
      const latest = [...mine].sort((a, b) => Date.parse(b.run.startedAt) - Date.parse(a.run.startedAt))[0];
      entry.pageUrl = latest?.pages[0]?.url;
    }
    return entry;
  });
}

function metricValue(type: ResultCheckType, metric: string, units: Unit[]): number | null {
  if (metric === 'availability') {
    if (units.length === 0) return null;
    const passing = units.filter((u) => !u.run.hasFailures).length;
    return Number(((100 * passing) / units.length).toFixed(2));
  }
  if (metric === 'retries') return units.length === 0 ? null : units.reduce((a, u) => a + u.run.attempts - 1, 0);
  const cut = metric.lastIndexOf('_');
  const sample = referenceBases[type][metric.slice(0, cut)];
  if (!sample) throw new Error(`reference has no metric ${metric} for ${type}`);
  const values =
    'run' in sample ? units.map((u) => sample.run(u.run)) : units.flatMap((u) => u.pages.map((p) => sample.page(p)));
  return aggregate(
    values.filter((v): v is number => v !== undefined),
    metric.slice(cut + 1),
  );
}

/** Raw runs newest first (ties by id, descending); page metrics give one row per page. */
export function referenceRaw(results: CheckResult[], q: ReferenceQuery): Point[] {
  const bases = q.metrics.map((name) => ({ name, sample: referenceBases[q.type][name]! }));
  const perPage = bases.some((b) => 'page' in b.sample);
  const runs = results
    .filter((r) => inQuery(r, q))
    .sort((a, b) => Date.parse(b.startedAt) - Date.parse(a.startedAt) || (a.id < b.id ? 1 : -1));
  const rows = runs.flatMap((run) => {
    const base = { startedAt: run.startedAt, resultId: run.id, runLocation: run.runLocation };
    const value = (sample: Sample, page?: Page) => ('run' in sample ? sample.run(run) : sample.page(page!)) ?? null;
    if (!perPage) return [{ ...base, ...Object.fromEntries(bases.map((b) => [b.name, value(b.sample)])) }];
    return [...(run.pages ?? [])]
      .sort((a, b) => a.index - b.index)
      .map((page) => ({
        ...base,
        pageIndex: page.index,
        pageUrl: page.url,
        ...Object.fromEntries(bases.map((b) => [b.name, value(b.sample, page)])),
      }));
  });
  const limit = q.limit ?? 10;
  return rows.slice(((q.page ?? 1) - 1) * limit, (q.page ?? 1) * limit);
}

function inQuery(r: CheckResult, q: ReferenceQuery): boolean {
  const at = Date.parse(r.startedAt);
  if (at < q.from || at >= q.to) return false;
  const statuses = q.statuses ?? [];
  if (statuses.length === 0) return true;
  if (q.type === 'HEARTBEAT') return statuses.includes(r.heartbeat!.status);
  return statuses.includes(r.hasFailures ? 'failure' : 'success');
}

function compare(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}
