import type { AnalyticsStore } from '../port.ts';
import { DAY_MS, NO_LOCATION_TABLE } from '../rollup/daily.ts';
import { addToSketch, sketchQuantile } from '../rollup/sketch.ts';
import {
  HOUR_MS,
  ROLLED_METRICS,
  ROLLUP_TABLE,
  RUNS_METRIC,
  completedSql,
  hourMsSql,
  rollSelectSql,
} from '../rollup/sql.ts';
import { sqlDateTime, sqlNumber, sqlString, type SqlDialect } from '../sql.ts';
import { WATERMARK_ROW, watermarkRowFilter } from '../rollup/watermark-row.ts';
import { fillSmallCells, type SmallCell } from './small-cells.ts';
import { addEdgeRows, clickHouseEdgeRowsSql, emptyMerged, type EdgeRow, type Merged } from './raw-edge.ts';
import { valueAlias, whereSql, type AggregatePlan, type AggregateRow, type StatColumn } from './build.ts';
import type { AnalyticsQuery } from './params.ts';

/**
 * Aggregates from the hourly rollups: closed, rolled hours come from check_rollups, the rest of
 * the window (the partial hours at its edges and the hours not rolled yet) is rolled on the fly
 * from the raw rows by the same SQL, and both merge per group and bucket. count, sum, min, max,
 * avg and stddev (from the sum of squares) are exact up to floating-point rounding; percentiles
 * come from the merged sketch (within 1% relative, see rollup/sketch.ts) when a cell holds more
 * than `sketchAbove` samples, and otherwise from the exact SQL over just the buckets of the
 * small cells (small-cells.ts).
 */

/** Percentiles of cells with at most this many samples are computed exactly from the raw rows. */
export const SKETCH_ABOVE = 2_000;

const PERCENTILE_LEVELS: Partial<Record<StatColumn, number>> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99 };

/** Whether rollups can answer the query: run metrics, grouped by nothing or location, whole-hour buckets. */
export function rollupEligible(query: AnalyticsQuery, plan: AggregatePlan): boolean {
  // Hourly rollups cannot leave out a range inside an hour.
  if (query.raw || plan.level !== 'run' || (query.exclude?.length ?? 0) > 0) return false;
  if (query.groupBy !== null && query.groupBy !== 'runLocation') return false;
  if (query.statuses.some((status) => status !== 'success' && status !== 'failure')) return false;
  if (query.intervalMinutes !== null && query.intervalMinutes % 60 !== 0) return false;
  return plan.values.every(
    ({ base }) => base.source.level === 'run' && ROLLED_METRICS.get(base.name) === base.source.sql,
  );
}

/** Whether daily rows (no location, whole UTC days) can serve the query's cells. */
export function dailyEligible(query: AnalyticsQuery): boolean {
  return query.groupBy === null && (query.intervalMinutes === null || query.intervalMinutes % 1440 === 0);
}

/**
 * The FROM clause of the hourly rollups without location, from the hourly rollups' one (the
 * same engine spelling: `FINAL` on ClickHouse), so every adapter names it alike.
 */
export function noLocationSource(rollupSource: string): string {
  if (!rollupSource.startsWith(ROLLUP_TABLE)) throw new Error(`unexpected rollup source ${rollupSource}`);
  return `${NO_LOCATION_TABLE}${rollupSource.slice(ROLLUP_TABLE.length)}`;
}

/**
 * The plan's aggregate rows from rollups rolled up to `completed` (the watermark as the reader
 * last read it); undefined when a percentile must come from the exact path, 'stale' when the
 * watermark has gone back below `completed` since.
 */
export async function readFromRollups(
  store: AnalyticsStore,
  query: AnalyticsQuery,
  plan: AggregatePlan,
  completed: number,
  sketchAbove = SKETCH_ABOVE,
): Promise<AggregateRow[] | 'stale' | undefined> {
  const sketched = new Set(
    plan.values
      .filter((value) => [...value.stats].some((stat) => PERCENTILE_LEVELS[stat] !== undefined))
      .map((value) => value.base.name),
  );
  const { sql, edgeSql, watermarkRow } = rollupReadSql(
    query,
    store.dialect,
    store.source,
    store.rollups.source,
    plan.values.map((value) => value.base.name),
    sketched,
    completed,
    dailyEligible(query) ? store.rollups.daily : undefined,
    query.groupBy === null ? noLocationSource(store.rollups.source) : undefined,
  );
  // Both at once: the server runs them side by side.
  const [rows, edgeRows] = await Promise.all([
    store.query<Record<string, unknown>>(sql),
    edgeSql === undefined ? [] : store.query<EdgeRow>(edgeSql),
  ]);
  const { stored, live } = watermarkRow ? splitWatermarkRow(rows) : { stored: rows, live: minLive(rows) };
  // Rolled up to less than the reader assumed (a rewind since it read the watermark): ask again.
  if (live < completed) return 'stale';
  // No row says which watermark the statement saw: the exact path answers (cheaply, nothing is there).
  if (stored.length === 0) return undefined;
  const cells = new Map<string, { g: unknown; b: unknown; metrics: Map<string, Merged> }>();
  // ClickHouse sends a row per stored rollup row (a cell's metric may have many), DuckDB one per
  // cell and metric: either way their sums add up.
  for (const row of stored) {
    const key = JSON.stringify([row.g, Number(row.b)]);
    const cell = cells.get(key) ?? { g: row.g, b: Number(row.b), metrics: new Map<string, Merged>() };
    cells.set(key, cell);
    const merged = cell.metrics.get(String(row.metric)) ?? emptyMerged();
    cell.metrics.set(String(row.metric), merged);
    if (store.dialect === 'clickhouse' && Array.isArray(row.sk)) addToSketch(merged.sketch, row.sk[0], row.sk[1]);
    if (Array.isArray(row.sk_keys)) addToSketch(merged.sketch, row.sk_keys, row.sk_counts as number[]);
    if (store.dialect === 'duckdb' && Array.isArray(row.sk))
      for (const entry of row.sk as { k: number; c: number }[]) addToSketch(merged.sketch, [entry.k], [entry.c]);
    merged.n += Number(row.n);
    merged.failures += Number(row.failure_sum);
    merged.retries += Number(row.retry_sum);
    merged.total += Number(row.s_total);
    merged.minimum = Math.min(merged.minimum, Number(row.s_min));
    merged.maximum = Math.max(merged.maximum, Number(row.s_max));
    merged.squares += Number(row.s_squares);
  }

  const metricNames = [RUNS_METRIC, ...new Set(plan.values.map((value) => value.base.name))];
  addEdgeRows(edgeRows, query, metricNames, sketched, (g, b, metric) => {
    const key = JSON.stringify([g, b]);
    const cell = cells.get(key) ?? { g, b, metrics: new Map<string, Merged>() };
    cells.set(key, cell);
    const merged = cell.metrics.get(metric) ?? emptyMerged();
    cell.metrics.set(metric, merged);
    return merged;
  });

  const out: AggregateRow[] = [];
  const small: SmallCell[] = [];
  for (const { g, b, metrics } of cells.values()) {
    const runs = metrics.get(RUNS_METRIC);
    if (runs === undefined || runs.n === 0) continue;
    const row: AggregateRow = { g, b, n: runs.n, failures: runs.failures, retries: runs.retries };
    const exact: string[] = [];
    for (const [i, value] of plan.values.entries()) {
      const merged = metrics.get(value.base.name);
      for (const stat of value.stats) {
        if (merged === undefined || merged.n === 0) {
          row[valueAlias(i, stat)] = null;
          continue;
        }
        const level = PERCENTILE_LEVELS[stat];
        if (level !== undefined && merged.n <= sketchAbove) exact.push(valueAlias(i, stat));
        else row[valueAlias(i, stat)] = statValue(stat, merged, level);
      }
    }
    if (exact.length > 0) small.push({ row, columns: exact });
    out.push(row);
  }
  return (await fillSmallCells(store, query, plan, small)) ? out : undefined;
}

/** The rows as the statement sent them; each carries the watermark it saw as `live`. */
function minLive(rows: readonly Record<string, unknown>[]): number {
  let live = Infinity;
  for (const row of rows) live = Math.min(live, Number(row.live));
  return live;
}

/**
 * The rollup rows apart from the watermark row (rollup/watermark-row.ts), and the watermark it
 * holds: the latest mark's (its `n` is the mark's set_ms), or 0 when the table holds none (a
 * rebuild dropped it), which sends the reader to the raw rows.
 */
function splitWatermarkRow(rows: readonly Record<string, unknown>[]): {
  stored: Record<string, unknown>[];
  live: number;
} {
  const stored: Record<string, unknown>[] = [];
  let live = 0;
  let setMs = -1;
  for (const row of rows) {
    if (row.metric !== WATERMARK_ROW.metric) stored.push(row);
    else if (Number(row.n) > setMs) {
      setMs = Number(row.n);
      live = Number(row.s_total);
    }
  }
  return { stored, live };
}

function statValue(stat: StatColumn, m: Merged, level: number | undefined): number | null {
  if (level !== undefined) return sketchQuantile(m.sketch, level, { min: m.minimum, max: m.maximum });
  const mean = m.total / m.n;
  switch (stat) {
    case 'avg':
      return mean;
    case 'sum':
      return m.total;
    case 'min':
      return m.minimum;
    case 'max':
      return m.maximum;
    case 'stddev':
      return Math.sqrt(Math.max(0, m.squares / m.n - mean * mean));
    default:
      return null;
  }
}

/**
 * One statement in three parts, merged per group (g), bucket (b) and metric, cut at `completed`
 * (the watermark the reader last read, a constant so every part prunes by time):
 * - daily rows (when `dailySource` is given) for the window's whole UTC days ending by `completed`;
 * - hourly rows for the other rolled whole hours (the part-days at the window's edges, and all
 *   of it when there are no daily rows), from `noLocationSource` (one row per hour, not one per
 *   location) when given, for a query not grouped by location;
 * - the raw rows of the rest (the partial hours at the edges and the hours from `completed` on),
 *   rolled on the fly by the same SQL; on ClickHouse, when there are stored parts, selected by
 *   `edgeSql` instead, for the reader to sum (raw-edge.ts).
 * The parts never overlap or leave a gap. The statement also says which watermark it saw: each
 * row carries it as `live`, or, on ClickHouse when every part is stored, one more row does, the
 * watermark row of the first part's table (`watermarkRow`). Below `completed` (a rewind since
 * the reader read it), rollups of the hours between may be stale, so the reader asks again.
 */
export function rollupReadSql(
  query: AnalyticsQuery,
  dialect: SqlDialect,
  rawSource: string,
  rollupSource: string,
  metricNames: readonly string[],
  sketched: ReadonlySet<string>,
  completed: number,
  dailySource?: string,
  noLocationSource?: string,
): { sql: string; edgeSql?: string; watermarkRow?: true } {
  const from = query.window.from.getTime();
  const to = query.window.to.getTime();
  const firstHour = Math.ceil(from / HOUR_MS) * HOUR_MS;
  const endHour = Math.max(firstHour, Math.floor(to / HOUR_MS) * HOUR_MS);
  // Rolled whole hours: [firstHour, hourEnd); of them, whole days [firstDay, dayEnd) from daily rows.
  const hourEnd = Math.max(firstHour, Math.min(endHour, Math.floor(completed / HOUR_MS) * HOUR_MS));
  const firstDay = Math.min(hourEnd, Math.ceil(from / DAY_MS) * DAY_MS);
  const dayEnd =
    dailySource === undefined ? firstDay : Math.max(firstDay, Math.floor(Math.min(hourEnd, to) / DAY_MS) * DAY_MS);
  const metrics = [RUNS_METRIC, ...new Set(metricNames)];
  const metricList = metrics.map((name) => sqlString(name, dialect)).join(', ');
  const ids = `account_id = ${sqlString(query.accountId, dialect)} AND check_id = ${sqlString(query.checkId, dialect)}`;
  const runStatuses = query.statuses.filter((status) => status === 'success' || status === 'failure');
  const status = runStatuses.length === 1 ? ` AND has_failures = ${runStatuses[0] === 'failure' ? 1 : 0}` : '';
  const time = (ms: number) => sqlDateTime(new Date(ms));

  const columns =
    'metric, hour, run_location, has_failures, runs, retries, total, minimum, maximum, squares, sketch_keys, sketch_counts';
  // Each part is one statement over its ranges (OR-ed; the engines prune by each): on ClickHouse
  // every FINAL part costs a merge of its own, so the edges on both sides share one.
  type Range = [number, number];
  const within = (column: string, ranges: Range[]) =>
    `(${ranges.map(([start, end]) => `(${column} >= ${time(start)} AND ${column} < ${time(end)})`).join(' OR ')})`;
  // Every condition is on sorting-key columns, which all copies of a rollup row share: on
  // ClickHouse they go in PREWHERE, so FINAL merges only the rows kept (the hourly edges alone:
  // 25–32 ms with WHERE, 7–12 with PREWHERE, 18.16, system.query_log).
  const filter = (source: string) => (/\sFINAL$/.test(source) ? 'PREWHERE' : 'WHERE');
  const stored = (source: string, column: string, ranges: Range[], select = columns, orRow = false) => {
    const rows = `${ids} AND metric IN (${metricList}) AND ${within(column, ranges)}${status}`;
    return `SELECT ${select} FROM ${source} ${filter(source)} ${orRow ? `(${rows}) OR ${watermarkRowFilter(column)}` : rows}`;
  };
  const parts: string[] = [];
  // ClickHouse: the same stored parts, each selecting the reader's columns itself (flatSelect).
  const flat: { source: string; column: string; ranges: Range[]; hour: string; location: string }[] = [];
  if (dayEnd > firstDay && dailySource !== undefined) {
    flat.push({ source: dailySource, column: 'day', ranges: [[firstDay, dayEnd]], hour: 'day', location: "''" });
    parts.push(
      stored(
        dailySource,
        'day',
        [[firstDay, dayEnd]],
        columns.replace('hour, run_location', `day AS hour, '' AS run_location`),
      ),
    );
  }
  const hours: Range[] = [
    [firstHour, firstDay],
    [dayEnd, hourEnd],
  ].filter(([start, end]) => end! > start!) as Range[];
  // ClickHouse prunes each range of an OR by its sorting key, and each FINAL part costs a merge of
  // its own, so its ranges share one part. DuckDB's zone maps skip row groups only for ANDed
  // bounds (an OR scanned the busy check's 1M raw rows: 15 ms for a 1,400-row edge), so there
  // every range is a part of its own.
  const grouped = (ranges: Range[]): Range[][] =>
    dialect === 'clickhouse' ? [ranges] : ranges.map((range) => [range]);
  for (const ranges of grouped(hours)) {
    flat.push({
      source: noLocationSource ?? rollupSource,
      column: 'hour',
      ranges,
      hour: 'hour',
      location: noLocationSource === undefined ? 'run_location' : "''",
    });
    parts.push(
      noLocationSource === undefined
        ? stored(rollupSource, 'hour', ranges)
        : stored(noLocationSource, 'hour', ranges, columns.replace('run_location', `'' AS run_location`)),
    );
  }
  // The raw rows before firstHour and from hourEnd on: the window's edges and the unrolled tail.
  const edges: Range[] = [
    [from, firstHour],
    [hourEnd, to],
  ].filter(([start, end]) => end! > start!) as Range[];
  // ClickHouse: the raw edges as a statement of their own, aggregated by the reader (raw-edge.ts),
  // when the stored parts give the statement rows to carry `live`.
  let edgeSql: string | undefined;
  if (dialect === 'clickhouse' && parts.length > 0 && edges.length > 0) {
    edgeSql = clickHouseEdgeRowsSql(query, rawSource, metrics, edges);
    edges.length = 0;
  }
  if (edges.length === 0 && parts.length === 0) edges.push([from, from]);
  for (const ranges of edges.length === 0 ? [] : grouped(edges)) {
    // started_at (whole seconds, in the sorting key) prunes; started_ms makes the bounds exact.
    const bounds = ranges.map(
      ([start, end]) =>
        `(started_at >= ${time(Math.floor(start / 1000) * 1000)} AND started_at <= ${time(Math.ceil(end / 1000) * 1000)} ` +
        `AND started_ms >= ${sqlNumber(start)} AND started_ms < ${sqlNumber(end)})`,
    );
    const where = `${whereSql(query, dialect)} AND ${bounds.length === 1 ? bounds[0]! : `(${bounds.join(' OR ')})`}`;
    // As the exact path: on ClickHouse, only this check's rows reach FINAL's merge (build.ts).
    const prewhere = /\sFINAL$/.test(rawSource) ? `${ids}` : undefined;
    parts.push(`SELECT ${columns} FROM (${rollSelectSql(dialect, rawSource, where, metrics, prewhere)}) AS edge`);
  }

  const group = query.groupBy === 'runLocation' ? 'run_location' : '0';
  const hourMs = hourMsSql(dialect);
  const size = query.intervalMinutes === null ? null : sqlNumber(query.intervalMinutes * 60_000);
  const bucket =
    size === null
      ? '0'
      : dialect === 'clickhouse'
        ? `intDiv(${hourMs}, ${size}) * ${size}`
        : `(${hourMs} // ${size}) * ${size}`;
  const sums =
    'sum(runs) AS n, sum(has_failures * runs) AS failure_sum, sum(retries) AS retry_sum, sum(total) AS s_total, ' +
    'min(minimum) AS s_min, max(maximum) AS s_max, sum(squares) AS s_squares';
  const sketchList = [...sketched].map((name) => sqlString(name, dialect)).join(', ');
  const union = parts.join(' UNION ALL ');
  const cells = `SELECT ${group} AS g, ${bucket} AS b, ${columns} FROM (${union}) AS parts`;
  const live = completedSql(dialect);

  if (dialect === 'clickhouse') {
    // The stored rows as they are, for the reader to add up (as it does the raw edges): grouping
    // and sumMap here cost chdb about 7 of the statement's 17 ms for a busy check's ~200 rows
    // (3 metrics, under load; selecting the rows alone took 9.6), and 18.16 about 5 ms (the last
    // round's profile), where adding them in JS takes well under 1 ms.
    const sketch =
      sketched.size === 0
        ? ''
        : `, tuple(if(metric IN (${sketchList}), sketch_keys, emptyArrayInt32()), if(metric IN (${sketchList}), sketch_counts, emptyArrayUInt64())) AS sk`;
    const rowSums =
      'runs AS n, has_failures * runs AS failure_sum, retries AS retry_sum, total AS s_total, minimum AS s_min, ' +
      'maximum AS s_max, squares AS s_squares';
    if (flat.length === parts.length) {
      // Every part stored: each selects the reader's columns straight from its table, with no
      // SELECT over the UNION (a level cost chdb about 1 ms), and the first also selects the
      // watermark row its table carries, in place of a scalar subquery (rollup/watermark-row.ts).
      const flatSelect = ({ source, column, ranges, hour, location }: (typeof flat)[number], i: number) => {
        const hourMsOf = hourMsSql(dialect).replace('hour', hour);
        const b = size === null ? '0' : `intDiv(${hourMsOf}, ${size}) * ${size}`;
        const g = query.groupBy === 'runLocation' ? location : '0';
        const sk =
          sketched.size === 0
            ? ''
            : `, if(metric IN (${sketchList}), sketch_keys, emptyArrayInt32()) AS sk_keys, if(metric IN (${sketchList}), sketch_counts, emptyArrayUInt64()) AS sk_counts`;
        return stored(source, column, ranges, `${g} AS g, toUInt64(${b}) AS b, metric, ${rowSums}${sk}`, i === 0);
      };
      return {
        sql: flat.map(flatSelect).join(' UNION ALL '),
        watermarkRow: true,
        ...(edgeSql === undefined ? {} : { edgeSql }),
      };
    }
    return {
      sql: `SELECT ${group} AS g, ${bucket} AS b, metric, ${rowSums}${sketch}, ${live} AS live FROM (${union}) AS parts`,
      ...(edgeSql === undefined ? {} : { edgeSql }),
    };
  }
  const stats = `SELECT g, b, metric, ${sums} FROM cells GROUP BY g, b, metric`;
  if (sketched.size === 0)
    return { sql: `WITH cells AS (${cells}) SELECT *, ${live} AS live FROM (${stats}) AS stats` };
  const keyed =
    `SELECT g, b, metric, k, sum(c) AS c FROM (SELECT g, b, metric, unnest(sketch_keys) AS k, unnest(sketch_counts) AS c ` +
    `FROM cells WHERE metric IN (${sketchList})) AS flat GROUP BY g, b, metric, k`;
  const lists = `SELECT g, b, metric, list({'k': k, 'c': c}) AS sk FROM keyed GROUP BY g, b, metric`;
  return {
    sql:
      `WITH cells AS (${cells}), stats AS (${stats}), keyed AS (${keyed}), lists AS (${lists}) ` +
      `SELECT stats.*, lists.sk, ${live} AS live FROM stats LEFT JOIN lists ON stats.g = lists.g AND stats.b = lists.b AND stats.metric = lists.metric`,
  };
}
