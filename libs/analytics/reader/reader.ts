import type { AnalyticsStore } from '../port.ts';
import {
  aggregateSql,
  finishAggregateRows,
  rawSql,
  statColumn,
  valueAlias,
  type AggregatePlan,
  type AggregateRow,
  type StatColumn,
} from './build.ts';
import { metricMetadata, type BaseMetric, type MetricMetadata, type RequestedMetric } from './metrics.ts';
import type { AnalyticsQuery } from './params.ts';
import { HOUR_MS } from '../rollup/sql.ts';
import { dailyEligible, readFromRollups, rollupEligible } from './rollup-read.ts';
import { bucketStarts } from './window.ts';
import type { CheckWindow } from '../window/window.ts';
import type { KnownToken } from '../window/tokens.ts';

export type MetricValue = number | null;
export type DataPoint = Record<string, string | number | null>;

/** One series entry: the group's key (runLocation, statusCode or pageIndex, plus pageUrl) and its data. */
export type SeriesEntry = Record<string, string | number | null | DataPoint[]> & { data: DataPoint[] };

export interface AnalyticsAnswer {
  from: string;
  to: string;
  series: SeriesEntry[];
  pagination: { page: number; limit: number };
  metadata: Record<string, MetricMetadata>;
}

export interface AnalyticsReader {
  /** `known`: the check's change token, already read with the caller's own keys (CheckWindow.tokenKey). */
  read(query: AnalyticsQuery, known?: KnownToken): Promise<AnalyticsAnswer>;
}

/** A plan's query with where to find each base's columns in its rows. */
interface Planned {
  plan: AggregatePlan;
  index: Map<string, number>;
}

/**
 * Answers analytics queries from the store: aggregated series (per group, per time bucket) or
 * raw runs. Browser page metrics (TTFB, FCP, LCP, CLS, TBT, *Errors) are aggregated over pages:
 * ungrouped or grouped by runLocation, every page of every run in the window is one sample;
 * grouped by pageIndex, the pages with that index. Run metrics (responseTime, availability,
 * retries) are per run; grouped by pageIndex they cover the runs that loaded that page.
 */
export interface AnalyticsReaderOptions {
  /**
   * Read run aggregates from the rollups where they apply: true always (hourly rows, and daily
   * rows when not grouped by location), false never. Default: only for queries without location
   * (daily rows for whole days, hourly rows at the edges, raw rows for unrolled hours) on checks
   * busy enough that the rollups win; queries by location keep the exact path, and so do small
   * checks, where the raw rows are as fast (bench/analytics/busy-rollups.ts, see BUSY_RUNS).
   */
  rollups?: boolean;
  /** By default, rollups serve checks expected to have at least this many runs in the window (default BUSY_RUNS). */
  busyRuns?: number;
  /** Cells with more samples than this take percentiles from the rollup sketch (default SKETCH_ABOVE). */
  sketchAbove?: number;
  /** Recent rows of checks read before (window/window.ts): run-level plans of unchanged checks skip the engine. */
  window?: CheckWindow;
}

/** How long a reader trusts the rollup watermark it read; it only picks the faster path, never the answer. */
const WATERMARK_TTL_MS = 10_000;
/** Fewer rolled hours than this in a window: the exact path is as fast, and exact. */
const MIN_ROLLED_HOURS = 6;
/**
 * By default the rollups serve a query expected to cover at least this many runs (from the last
 * answer for the check). Below it the exact path answers as fast or faster, and exactly:
 * bench/analytics/busy-rollups.ts (one check, 30 days, 3 / 12 metrics, load 10-12 on 2 cores,
 * 2026-11-27) measured exact ÷ rollups 0.42 / 0.83 (DuckDB) and 0.32 / 0.58 (chdb) at 50,000
 * runs, 0.76 / 1.53 and 0.55 / 0.85 at 200,000; the rollups' cost is nearly flat in the runs.
 */
export const BUSY_RUNS = 250_000;
/** Checks whose run rate a reader remembers; past this it forgets them all and learns again. */
const MAX_RATES = 10_000;

export function createAnalyticsReader(store: AnalyticsStore, options: AnalyticsReaderOptions = {}): AnalyticsReader {
  let seen: { completed: number; at: number } | undefined;
  /**
   * The watermark to read rollups up to, when they cover enough of the window to be worth reading
   * (after a backfill they may not); `fresh` reads it again. A watermark that moved on since
   * only leaves more to the raw rows; one that went back is caught by readFromRollups.
   */
  const worthRolling = async (query: AnalyticsQuery, fresh = false): Promise<number | undefined> => {
    if (fresh || seen === undefined || Date.now() - seen.at > WATERMARK_TTL_MS) {
      const marks = await store.rollups.watermarks();
      seen = { completed: marks.completed, at: Date.now() };
    }
    const firstHour = Math.ceil(query.window.from.getTime() / HOUR_MS) * HOUR_MS;
    const rolledEnd = Math.min(seen.completed, Math.floor(query.window.to.getTime() / HOUR_MS) * HOUR_MS);
    return rolledEnd - firstHour >= MIN_ROLLED_HOURS * HOUR_MS ? seen.completed : undefined;
  };
  // Runs per millisecond of window, per check, from the last aggregated answer: picks the path only.
  const rates = new Map<string, number>();
  const busy = (query: AnalyticsQuery): boolean => {
    const rate = rates.get(`${query.accountId}/${query.checkId}`);
    const span = query.window.to.getTime() - query.window.from.getTime();
    return rate !== undefined && rate * span >= (options.busyRuns ?? BUSY_RUNS);
  };
  const learn = (query: AnalyticsQuery, runs: number): void => {
    if (rates.size >= MAX_RATES) rates.clear();
    const span = Math.max(1, query.window.to.getTime() - query.window.from.getTime());
    rates.set(`${query.accountId}/${query.checkId}`, runs / span);
  };
  const readerOptions = { ...options, worthRolling, busy, learn };
  return {
    async read(query, known) {
      const metadata = Object.fromEntries(query.metrics.map((metric) => [metric.name, metricMetadata(metric)]));
      const common = {
        from: query.window.from.toISOString(),
        to: query.window.to.toISOString(),
        pagination: { page: query.page, limit: query.limit },
        metadata,
      };
      const series = query.raw ? await readRaw(store, query) : await readAggregated(store, query, readerOptions, known);
      return { ...common, series };
    },
  };
}

async function readRaw(store: AnalyticsStore, query: AnalyticsQuery): Promise<SeriesEntry[]> {
  const metrics = query.metrics.filter(
    (metric): metric is Extract<RequestedMetric, { kind: 'raw' }> => metric.kind === 'raw',
  );
  const rows = await store.query<AggregateRow>(
    rawSql(
      query,
      store.dialect,
      store.source,
      metrics.map((metric) => metric.base),
    ),
  );
  const data = rows.map((row) => {
    const point: DataPoint = {
      startedAt: new Date(Number(row.ms)).toISOString(),
      resultId: String(row.rid),
      runLocation: String(row.loc),
    };
    if ('pidx' in row) {
      point.pageIndex = Number(row.pidx);
      point.pageUrl = String(row.purl);
    }
    metrics.forEach((metric, i) => {
      point[metric.name] = numberOrNull(row[`v${i}`]);
    });
    return point;
  });
  return [{ data }];
}

async function readAggregated(
  store: AnalyticsStore,
  query: AnalyticsQuery,
  options: AnalyticsReaderOptions & {
    worthRolling: (query: AnalyticsQuery, fresh?: boolean) => Promise<number | undefined>;
    busy: (query: AnalyticsQuery) => boolean;
    learn: (query: AnalyticsQuery, runs: number) => void;
  },
  known?: KnownToken,
): Promise<SeriesEntry[]> {
  const bases = new Map<string, { base: BaseMetric; stats: Set<StatColumn> }>();
  for (const metric of query.metrics) {
    if (metric.kind !== 'aggregate') continue;
    const entry = bases.get(metric.base.name) ?? { base: metric.base, stats: new Set<StatColumn>() };
    entry.stats.add(statColumn(metric.aggregation));
    bases.set(metric.base.name, entry);
  }
  const all = [...bases.values()];
  // The run plan always runs: it counts runs (availability, retries) and finds the groups.
  const plans: Planned[] =
    query.groupBy === 'pageIndex'
      ? [planned('page', all)]
      : [
          planned(
            'run',
            all.filter((value) => value.base.source.level === 'run'),
          ),
        ];
  const pageValues = all.filter((value) => value.base.source.level === 'page');
  if (query.groupBy !== 'pageIndex' && pageValues.length > 0) plans.push(planned('page', pageValues));

  const only = plans.length === 1 ? plans[0]!.plan : undefined;
  const wanted = options.rollups ?? (dailyEligible(query) && options.busy(query));
  let rolled: AggregateRow[] | undefined;
  if (wanted && only !== undefined && rollupEligible(query, only)) {
    // Twice at most: once more after a rewind made the cached watermark stale, then the exact path.
    for (const fresh of [false, true]) {
      const completed = await options.worthRolling(query, fresh);
      const answer =
        completed === undefined ? undefined : await readFromRollups(store, query, only, completed, options.sketchAbove);
      if (answer !== 'stale') {
        rolled = answer;
        break;
      }
    }
  }
  const results =
    rolled !== undefined
      ? [rolled]
      : await Promise.all(
          plans.map(async ({ plan }) => {
            const held = await options.window?.rows(query, plan, known);
            if (held !== undefined) return held;
            const rows = await store.query<AggregateRow>(aggregateSql(query, store.dialect, store.source, plan));
            options.window?.missed(query, plan);
            return finishAggregateRows(rows, plan, store.dialect);
          }),
        );
  const counts = results[0] ?? [];
  // A status filter counts only some runs: learn the check's size from unfiltered answers.
  if (query.statuses.length === 0)
    options.learn(
      query,
      counts.reduce((sum, row) => sum + Number(row.n), 0),
    );
  const rowsByPlan = results.map((rows) => new Map(rows.map((row) => [cell(row.g, row.b), row])));

  const groups = groupKeys(query, results.flat());
  const first = (query.page - 1) * query.limit;
  const buckets = query.intervalMinutes === null ? [0] : bucketStarts(query.window, query.intervalMinutes);
  const countsByCell = new Map(counts.map((row) => [cell(row.g, row.b), row]));

  return groups.slice(first, first + query.limit).map((group) => {
    const data = buckets.map((bucket) => {
      const point: DataPoint = query.intervalMinutes === null ? {} : { timestamp: new Date(bucket).toISOString() };
      const key = cell(group, bucket);
      const runs = countsByCell.get(key);
      for (const metric of query.metrics) point[metric.name] = value(metric, key, runs, plans, rowsByPlan);
      return point;
    });
    // The group key first, then data, so a reader of the JSON sees what the entry is about.
    const head: Record<string, string | number | null> = {};
    if (query.groupBy !== null) head[query.groupBy] = group as string | number | null;
    if (query.groupBy === 'pageIndex') head.pageUrl = latestUrl(group, counts);
    return { ...head, data } as SeriesEntry;
  });
}

function planned(level: 'run' | 'page', values: { base: BaseMetric; stats: Set<StatColumn> }[]): Planned {
  return { plan: { level, values }, index: new Map(values.map((value, i) => [value.base.name, i])) };
}

function value(
  metric: RequestedMetric,
  key: string,
  runs: AggregateRow | undefined,
  plans: Planned[],
  rowsByPlan: Map<string, AggregateRow>[],
): MetricValue {
  if (metric.kind === 'raw') return null;
  const n = runs === undefined ? 0 : Number(runs.n);
  if (metric.kind === 'availability') {
    if (n === 0) return null;
    // Two decimals, rounded here rather than in SQL so both engines round the same way.
    return Math.round((10_000 * (n - Number(runs!.failures))) / n) / 100;
  }
  if (metric.kind === 'retries') return n === 0 ? null : Number(runs!.retries);
  if (metric.kind === 'runCount') {
    if (n === 0) return null;
    const failed = Number(runs!.failures);
    if (metric.count === 'total') return n;
    if (metric.count === 'failed') return failed;
    if (metric.count === 'successful') return n - failed;
    // Two decimals, as availability; the two add up to 100.
    return Math.round((10_000 * failed) / n) / 100;
  }
  for (const [p, { index }] of plans.entries()) {
    const i = index.get(metric.base.name);
    if (i === undefined) continue;
    const row = rowsByPlan[p]?.get(key);
    return row === undefined ? null : numberOrNull(row[valueAlias(i, statColumn(metric.aggregation))]);
  }
  return null;
}

/** The groups present in the window, in key order (nulls last); ungrouped has the one group 0. */
function groupKeys(query: AnalyticsQuery, rows: AggregateRow[]): unknown[] {
  if (query.groupBy === null) return [0];
  const keys = new Map<string, unknown>();
  for (const row of rows) {
    const key = normaliseGroup(query, row.g);
    keys.set(JSON.stringify(key), key);
  }
  return [...keys.values()].sort(compareKeys);
}

function normaliseGroup(query: AnalyticsQuery, g: unknown): string | number | null {
  if (g === null || g === undefined) return null;
  return query.groupBy === 'runLocation' ? String(g) : Number(g);
}

function compareKeys(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return (a as number | string) < (b as number | string) ? -1 : 1;
}

function cell(group: unknown, bucket: unknown): string {
  const g = group === null || group === undefined ? null : typeof group === 'string' ? group : Number(group);
  return JSON.stringify([g, Number(bucket)]);
}

/** The URL the latest run loaded at this page index: the one in the latest bucket. */
function latestUrl(group: unknown, rows: AggregateRow[]): string | null {
  let best: AggregateRow | undefined;
  for (const row of rows) {
    if (Number(row.g) !== group) continue;
    if (best === undefined || Number(row.b) > Number(best.b)) best = row;
  }
  return best === undefined ? null : String(best.url);
}

function numberOrNull(value: unknown): MetricValue {
  if (value === null || value === undefined) return null;
  const number = Number(value);
  return Number.isFinite(number) ? number : null;
}
