import { valueAlias, type AggregatePlan, type AggregateRow, type StatColumn } from '../reader/build.ts';
import type { AnalyticsQuery } from '../reader/params.ts';
import type { SqlDialect } from '../sql.ts';
import { lowerBound, type CheckRows } from './rows.ts';

const LEVELS: Partial<Record<StatColumn, number>> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99 };

/** Whether aggregateRows answers this plan: run-level values, grouped by nothing, location or status code. */
export function answersInMemory(query: AnalyticsQuery, plan: AggregatePlan): boolean {
  return plan.level === 'run' && query.groupBy !== 'pageIndex' && !query.raw;
}

interface Cell {
  g: string | number | null;
  b: number;
  runs: number[];
}

/**
 * The rows aggregateSql + finishAggregateRows give for a run-level plan, computed from a check's
 * rows in memory: the same WHERE (window [from, to), excluded ranges, status filter), the same
 * cells (group × epoch-aligned bucket, only those with runs), the same statistics (population
 * stddev, percentiles by linear interpolation between closest ranks, NULL samples skipped; the
 * sum, min, max, mean and spread of none are null). Percentiles are always exact here, where
 * ClickHouse takes the nearest rank above EXACT_LIMIT samples, and interpolated with the
 * engine's own arithmetic, so a chart drawn from one path and a table from the other show the
 * same digits. Sums, means and spreads agree to rounding only: they depend on summation order.
 */
export function aggregateRows(
  rows: CheckRows,
  query: AnalyticsQuery,
  plan: AggregatePlan,
  dialect: SqlDialect,
): AggregateRow[] {
  const interpolate = dialect === 'duckdb' ? weighted : stepped;
  const from = query.window.from.getTime();
  const to = query.window.to.getTime();
  const size = query.intervalMinutes === null ? 0 : query.intervalMinutes * 60_000;
  const runStatuses = query.statuses.filter((status) => status === 'success' || status === 'failure');
  const onlyFailed = runStatuses.length === 1 ? (runStatuses[0] === 'failure' ? 1 : 0) : undefined;
  const beats = query.statuses.filter((status) => status !== 'success' && status !== 'failure') as string[];
  const exclude = query.exclude ?? [];

  const cells = new Map<string | number | null, Map<number, Cell>>();
  const end = lowerBound(rows.ms, to);
  for (let i = lowerBound(rows.ms, from); i < end; i++) {
    const ms = rows.ms[i]!;
    if (onlyFailed !== undefined && rows.failed[i] !== onlyFailed) continue;
    if (beats.length > 0 && !beats.includes(rows.heartbeat[i] as string)) continue;
    if (exclude.length > 0 && exclude.some((range) => ms >= range.fromMs && ms < range.toMs)) continue;
    const g =
      query.groupBy === 'runLocation' ? rows.location[i]! : query.groupBy === 'statusCode' ? rows.statusCode[i]! : 0;
    const b = size === 0 ? 0 : Math.floor(ms / size) * size;
    let byBucket = cells.get(g);
    if (byBucket === undefined) cells.set(g, (byBucket = new Map()));
    let cell = byBucket.get(b);
    if (cell === undefined) byBucket.set(b, (cell = { g, b, runs: [] }));
    cell.runs.push(i);
  }

  const out: AggregateRow[] = [];
  for (const byBucket of cells.values())
    for (const cell of byBucket.values()) {
      const row: AggregateRow = { g: cell.g, b: cell.b, n: cell.runs.length };
      let failures = 0;
      let retries = 0;
      for (const i of cell.runs) {
        failures += rows.failed[i]!;
        retries += rows.retries[i]!;
      }
      row.failures = failures;
      row.retries = retries;
      plan.values.forEach((value, v) => {
        const source = value.base.source;
        const column = source.level === 'run' ? rows.values.get(source.sql) : undefined;
        const samples = column === undefined ? new Float64Array(0) : present(column, cell.runs);
        for (const stat of value.stats) row[valueAlias(v, stat)] = statistic(stat, samples, interpolate);
      });
      out.push(row);
    }
  return out;
}

function present(column: Float64Array, runs: number[]): Float64Array {
  const samples = new Float64Array(runs.length);
  let n = 0;
  for (const i of runs) {
    const value = column[i]!;
    if (!Number.isNaN(value)) samples[n++] = value;
  }
  return samples.subarray(0, n);
}

/**
 * samples is sorted in place by the first percentile asked for, and stays sorted for the rest: a
 * typed array's numeric sort, six times faster than an array's sort with a comparator (0.14 against
 * 0.86 ms for 4,000 samples).
 */
type Interpolate = (below: number, fraction: number, above: number) => number;
/** The reader's arithmetic on ClickHouse's sorted samples (reader/build.ts interpolate). */
const stepped: Interpolate = (below, fraction, above) => below + fraction * (above - below);
/** DuckDB's quantile_cont: the same line, rounded differently (checked against 1,200 of its answers). */
const weighted: Interpolate = (below, fraction, above) => below * (1 - fraction) + above * fraction;

function statistic(stat: StatColumn, samples: Float64Array, interpolate: Interpolate): number | null {
  const n = samples.length;
  if (n === 0) return null;
  const level = LEVELS[stat];
  if (level !== undefined) {
    if (!isSorted(samples)) samples.sort();
    const h = (n - 1) * level;
    const lower = Math.floor(h);
    const below = samples[lower]!;
    const above = samples[Math.min(lower + 1, n - 1)]!;
    return interpolate(below, h - lower, above);
  }
  let sum = 0;
  let min = samples[0]!;
  let max = min;
  for (const value of samples) {
    sum += value;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  if (stat === 'min') return min;
  if (stat === 'max') return max;
  if (stat === 'sum') return sum;
  const mean = sum / n;
  if (stat === 'avg') return mean;
  // stddev: the population deviation, two-pass for accuracy.
  let squares = 0;
  for (const value of samples) squares += (value - mean) * (value - mean);
  return Math.sqrt(squares / n);
}

function isSorted(samples: Float64Array): boolean {
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! > samples[i]!) return false;
  return true;
}
