import { sqlDateTime, sqlNumber, sqlString, type SqlDialect } from '../sql.ts';
import type { Aggregation, BaseMetric, PageArray } from './metrics.ts';
import type { AnalyticsQuery, GroupBy } from './params.ts';

/**
 * SQL for the analytics reader, one builder for both engines. Everything the two dialects share
 * is written once; the differences are function names, the page unrolling (ARRAY JOIN on
 * ClickHouse, UNNEST on DuckDB) and the percentile method.
 *
 * Percentiles (p50, p90, p95, p99, median = p50) are exact linear interpolation between the
 * closest ranks, numpy's default: with the n samples sorted, h = (n - 1) * p, and the answer is
 * s[floor(h)] + (h - floor(h)) * (s[floor(h) + 1] - s[floor(h)]) (0-based).
 * - DuckDB: quantile_cont, which is that definition, with every level of a value in one call
 *   (one sort per value, not one per percentile).
 * - ClickHouse: 18.16 has no interpolating exact quantile (quantileExact picks one element,
 *   quantile and quantileTDigest are approximate), so the engine sorts each group's samples
 *   (arraySort(groupArray(v))) and the reader interpolates (finishAggregateRows), the formula above. That is
 *   exact and agrees with DuckDB to floating-point rounding. Sorting a huge group in an array is
 *   slow (bench/analytics: 272 ms on a 1M-run check), so above EXACT_LIMIT samples a group uses
 *   quantileExact, the nearest rank (quantilesExact, all levels in one pass): off by at most one rank, measured 1.3e-4 relative at 1M
 *   runs, far inside the 1% the issue allows for ClickHouse.
 * stddev is the population standard deviation (stddevPop / stddev_pop, numpy's default): it is
 * 0 for a single run, where the sample deviation would be undefined.
 * NULL samples (a timing a run did not report) are skipped by every aggregate.
 */

/** The columns an aggregate row carries, named so the reader can find them. */
export type StatColumn = 'avg' | 'min' | 'max' | 'sum' | 'stddev' | 'p50' | 'p90' | 'p95' | 'p99';

export function statColumn(aggregation: Aggregation): StatColumn {
  return aggregation === 'median' ? 'p50' : aggregation;
}

const PERCENTILES: Partial<Record<StatColumn, number>> = { p50: 0.5, p90: 0.9, p95: 0.95, p99: 0.99 };

/** Largest group whose ClickHouse percentiles are interpolated exactly (see above). */
export const EXACT_LIMIT = 10_000;

export interface ValueColumn {
  base: BaseMetric;
  stats: ReadonlySet<StatColumn>;
}

export interface AggregatePlan {
  /** 'page' unrolls the page arrays: one sample per page of each run. */
  level: 'run' | 'page';
  values: readonly ValueColumn[];
}

/** Row of an aggregate query: g (group key), b (bucket start ms), n (samples), failures, retries, url, v<i>_<stat>. */
export type AggregateRow = Record<string, unknown>;

export function valueAlias(index: number, stat: StatColumn): string {
  return `v${index}_${stat}`;
}

/** What the WHERE of a check's runs reads of a query: its scope, window, exclusions and status filter. */
export type RunFilter = Pick<AnalyticsQuery, 'accountId' | 'checkId' | 'window' | 'exclude' | 'statuses'>;

export function whereSql(query: RunFilter, dialect: SqlDialect): string {
  const from = query.window.from.getTime();
  const to = query.window.to.getTime();
  const conditions = [
    `account_id = ${sqlString(query.accountId, dialect)}`,
    `check_id = ${sqlString(query.checkId, dialect)}`,
  ];
  // On ClickHouse started_at is in the partition and sorting keys, so these two prune. DuckDB
  // prunes with the zone maps of every column, and started_ms (whole seconds of which are
  // started_at) rises with it, so there they only cost: 20-60 µs of a one-check read's 1 ms.
  if (dialect === 'clickhouse')
    conditions.push(`started_at >= ${sqlDateTime(query.window.from)}`, `started_at <= ${sqlDateTime(query.window.to)}`);
  // started_ms makes the bounds exact.
  conditions.push(`started_ms >= ${sqlNumber(from)}`, `started_ms < ${sqlNumber(to)}`);
  for (const range of query.exclude ?? [])
    conditions.push(`NOT (started_ms >= ${sqlNumber(range.fromMs)} AND started_ms < ${sqlNumber(range.toMs)})`);
  const runStatuses = query.statuses.filter((status) => status === 'success' || status === 'failure');
  if (runStatuses.length === 1) conditions.push(`has_failures = ${runStatuses[0] === 'failure' ? 1 : 0}`);
  const beats = query.statuses.filter((status) => status !== 'success' && status !== 'failure');
  if (beats.length > 0)
    conditions.push(`heartbeat_status IN (${beats.map((status) => sqlString(status, dialect)).join(', ')})`);
  return conditions.join(' AND ');
}

/**
 * ClickHouse reading with FINAL: a PREWHERE on the account and check. Without it, 18.16 merges
 * every row of the granules it reads (9 granules, 73,728 rows, for a check's 4,000 runs) before
 * the WHERE drops the other checks' rows; with it, only this check's rows reach the merge
 * (query_log: 13 ms against 6 ms, the cost without FINAL). Exact: both columns are in the sorting
 * key, so every copy of a result shares them and filtering before the collapse removes no copy
 * that the collapse would have kept.
 */
export function finalPrewhere(
  query: Pick<AnalyticsQuery, 'accountId' | 'checkId'>,
  dialect: SqlDialect,
  source: string,
): string {
  if (dialect !== 'clickhouse' || !/\sFINAL$/.test(source)) return '';
  return ` PREWHERE account_id = ${sqlString(query.accountId, dialect)} AND check_id = ${sqlString(query.checkId, dialect)}`;
}

const PAGE_ALIAS: Record<PageArray | 'page_index' | 'page_url', string> = {
  page_index: 'pj_index',
  page_url: 'pj_url',
  page_ttfb: 'pj_ttfb',
  page_fcp: 'pj_fcp',
  page_lcp: 'pj_lcp',
  page_cls: 'pj_cls',
  page_tbt: 'pj_tbt',
  page_console_errors: 'pj_console_errors',
  page_network_errors: 'pj_network_errors',
  page_user_script_errors: 'pj_user_script_errors',
  page_document_errors: 'pj_document_errors',
};

/** A metric's sample as a double, from its source: a run-level expression or a page array. */
export function sampleExpr(source: BaseMetric['source'], dialect: SqlDialect): string {
  const inner = source.level === 'run' ? source.sql : PAGE_ALIAS[source.array];
  return dialect === 'clickhouse' ? `toFloat64(${inner})` : `CAST(${inner} AS DOUBLE)`;
}

function groupExpr(groupBy: GroupBy | null): string {
  if (groupBy === 'runLocation') return 'run_location';
  if (groupBy === 'statusCode') return 'status_code';
  if (groupBy === 'pageIndex') return PAGE_ALIAS.page_index;
  return '0';
}

function bucketExpr(query: AnalyticsQuery, dialect: SqlDialect): string {
  if (query.intervalMinutes === null) return '0';
  const size = sqlNumber(query.intervalMinutes * 60_000);
  // Epoch-aligned: intDiv on the unix time, never toStartOfInterval (missing on 18.16).
  return dialect === 'clickhouse' ? `intDiv(started_ms, ${size}) * ${size}` : `(started_ms // ${size}) * ${size}`;
}

/** The arrays a page-level query unrolls: always the index and URL, plus those the values read. */
function pageArrays(values: readonly BaseMetric[]): (PageArray | 'page_index' | 'page_url')[] {
  const read = values.flatMap((base) => (base.source.level === 'page' ? [base.source.array] : []));
  return ['page_index', 'page_url', ...new Set(read)];
}

/**
 * FROM … WHERE … yielding one row per run, or per page of each run. ClickHouse unrolls with
 * ARRAY JOIN under aliases no SELECT alias reuses (18.16 rejects that); DuckDB with UNNEST in a
 * subquery (several UNNESTs in one select list advance together).
 */
function rowsFrom(
  query: AnalyticsQuery,
  dialect: SqlDialect,
  source: string,
  level: 'run' | 'page',
  bases: readonly BaseMetric[],
): string {
  const where = whereSql(query, dialect);
  const prewhere = finalPrewhere(query, dialect, source);
  if (level === 'run') return `FROM ${source}${prewhere} WHERE ${where}`;
  const arrays = pageArrays(bases);
  if (dialect === 'clickhouse') {
    return `FROM ${source} ARRAY JOIN ${arrays.map((array) => `${array} AS ${PAGE_ALIAS[array]}`).join(', ')}${prewhere} WHERE ${where}`;
  }
  const unnests = arrays.map((array) => `unnest(${array}) AS ${PAGE_ALIAS[array]}`).join(', ');
  return `FROM (SELECT *, ${unnests} FROM ${source} WHERE ${where}) AS pages`;
}

/** Run its rows through finishAggregateRows. */
export function aggregateSql(query: AnalyticsQuery, dialect: SqlDialect, source: string, plan: AggregatePlan): string {
  if (dialect === 'clickhouse') return clickHouseAggregateSql(query, source, plan);
  if (dialect === 'duckdb') return duckDbAggregateSql(query, source, plan);
  throw new Error(`unknown dialect ${String(dialect)}`);
}

/** The FROM … WHERE of an aggregate plan's rows. */
function planRowsFrom(query: AnalyticsQuery, dialect: SqlDialect, source: string, plan: AggregatePlan): string {
  return rowsFrom(
    query,
    dialect,
    source,
    plan.level,
    plan.values.map((value) => value.base),
  );
}

/**
 * DuckDB: one SELECT straight over the rows, as on ClickHouse. A value's percentiles are one
 * quantile_cont with a list of levels, indexed per stat: DuckDB computes identical aggregates
 * once, so that is one sort of the samples, not one per percentile. A one-cell answer (no groups,
 * no buckets) has no GROUP BY: an ungrouped aggregate skips the hash table, and the SELECT over a
 * SELECT over the rows this replaced cost a one-check answer 0.2-0.4 ms of its 1.6-2.5
 * (4,000 runs, interleaved, load 0.5-1.3). HAVING keeps an empty window at no rows, as a grouped
 * query gives.
 */
function duckDbAggregateSql(query: AnalyticsQuery, source: string, plan: AggregatePlan): string {
  const oneCell = query.groupBy === null && query.intervalMinutes === null;
  const columns = [
    `${groupExpr(query.groupBy)} AS g`,
    `${bucketExpr(query, 'duckdb')} AS b`,
    'count(*) AS n',
    'sum(has_failures) AS failures',
    'sum(attempts - 1) AS retries',
  ];
  if (query.groupBy === 'pageIndex') columns.push(`arg_max(${PAGE_ALIAS.page_url}, started_ms) AS url`);
  plan.values.forEach((value, i) => {
    const sample = sampleExpr(value.base.source, 'duckdb');
    const levels = percentileLevels(value.stats);
    // One level: the scalar form, which skips building and indexing a list (40-60 µs of a
    // one-check read's 1 ms, interleaved).
    const list = `quantile_cont(${sample}, [${levels.map(([, level]) => sqlNumber(level)).join(', ')}])`;
    const quantile = (at: number) =>
      levels.length === 1 ? `quantile_cont(${sample}, ${sqlNumber(levels[0]![1])})` : `${list}[${at + 1}]`;
    for (const stat of value.stats) {
      const at = levels.findIndex(([name]) => name === stat);
      const expr = at < 0 ? duckDbStat(stat, sample) : quantile(at);
      columns.push(`${expr} AS ${valueAlias(i, stat)}`);
    }
  });
  const from = planRowsFrom(query, 'duckdb', source, plan);
  return `SELECT ${columns.join(', ')} ${from} ${oneCell ? 'HAVING count(*) > 0' : 'GROUP BY g, b'}`;
}

/**
 * ClickHouse: one SELECT straight over the rows. Each value's sample expression is named inline
 * where it is first used (count(… AS v<i>)), so no SELECT over a SELECT is needed; a value with
 * percentiles sends the nearest ranks (q<i>) and, for a one-cell answer, its samples sorted (s<i>,
 * up to EXACT_LIMIT of them, else empty) for finishAggregateRows to interpolate. Interpolating in SQL took a query
 * over the aggregate, and each level and the long arrayElement expressions cost chdb (26.7 in
 * process) 2-3 ms of a one-check answer's 9-10 (bench/analytics/chdb-profile.ts, scratch variants
 * interleaved: 9.8-10.7 ms against 7.4-7.7 with the array sent, load 4).
 */
function clickHouseAggregateSql(query: AnalyticsQuery, source: string, plan: AggregatePlan): string {
  // One cell (no groups, no buckets): its samples are sent sorted and interpolated by the reader;
  // with many cells that would send every sample (a busy check by location and day: ~1M floats),
  // so the SQL interpolates them.
  const oneCell = query.groupBy === null && query.intervalMinutes === null;
  const columns = [
    `${groupExpr(query.groupBy)} AS g`,
    `${bucketExpr(query, 'clickhouse')} AS b`,
    'count() AS n',
    'sum(has_failures) AS failures',
    'sum(attempts - 1) AS retries',
  ];
  if (query.groupBy === 'pageIndex') columns.push(`argMax(${PAGE_ALIAS.page_url}, started_ms) AS url`);
  plan.values.forEach((value, i) => {
    const v = `v${i}`;
    columns.push(`count((${sampleExpr(value.base.source, 'clickhouse')} AS ${v})) AS c${i}`);
    const levels = percentileLevels(value.stats);
    if (levels.length > 0)
      columns.push(`quantilesExact(${levels.map(([, level]) => sqlNumber(level)).join(', ')})(${v}) AS q${i}`);
    const sorted = `arraySort(groupArray(${EXACT_LIMIT})(${v}))`;
    if (levels.length > 0 && oneCell)
      columns.push(`if(c${i} <= ${EXACT_LIMIT}, ${sorted}, emptyArrayFloat64()) AS s${i}`);
    let named = false;
    for (const stat of value.stats) {
      const at = levels.findIndex(([name]) => name === stat);
      if (at < 0) columns.push(`${clickHouseStat(stat, v)} AS ${valueAlias(i, stat)}`);
      else if (!oneCell) {
        // Named inline where first used, so the array is built once and never sent.
        const array = named ? `s${i}` : `(${sorted} AS s${i})`;
        named = true;
        columns.push(
          `if(c${i} <= ${EXACT_LIMIT}, ${interpolated(array, `s${i}`, levels[at]![1])}, arrayElement(q${i}, ${at + 1})) AS ${valueAlias(i, stat)}`,
        );
      }
    }
  });
  const from = planRowsFrom(query, 'clickhouse', source, plan);
  return `SELECT ${columns.join(', ')} ${from} GROUP BY g, b`;
}

/**
 * The rows of aggregateSql with every stat in its valueAlias column: on ClickHouse the percentiles
 * are interpolated here from the sorted samples (numpy's linear definition, the same arithmetic
 * the SQL did), or taken from the nearest ranks above EXACT_LIMIT samples. DuckDB's rows are
 * already so.
 */
export function finishAggregateRows(rows: AggregateRow[], plan: AggregatePlan, dialect: SqlDialect): AggregateRow[] {
  if (dialect !== 'clickhouse') return rows;
  plan.values.forEach((value, i) => {
    const levels = percentileLevels(value.stats);
    if (levels.length === 0) return;
    for (const row of rows) {
      // Interpolated in SQL already (more than one cell: clickHouseAggregateSql).
      if (!Array.isArray(row[`s${i}`])) continue;
      const count = Number(row[`c${i}`]);
      const sorted = row[`s${i}`] as number[];
      const nearest = row[`q${i}`] as (number | null)[];
      levels.forEach(([stat, level], at) => {
        row[valueAlias(i, stat)] =
          count <= EXACT_LIMIT ? interpolate(sorted, level) : nearest[at] === undefined ? null : nearest[at];
      });
      delete row[`s${i}`];
    }
  });
  return rows;
}

/**
 * Linear interpolation between closest ranks over a sorted array (1-based arrayElement), in SQL:
 * `first` names the array where it is first used (an inline alias), `name` after that.
 */
function interpolated(first: string, name: string, level: number): string {
  const n = `length(${name})`;
  const h = `((${n} - 1) * ${sqlNumber(level)})`;
  const lower = `arrayElement(${name}, toUInt64(floor(${h})) + 1)`;
  const upper = `arrayElement(${name}, least(toUInt64(floor(${h})) + 2, ${n}))`;
  return `if(length(${first}) = 0, NULL, ${lower} + (${h} - floor(${h})) * (${upper} - ${lower}))`;
}

/** Linear interpolation between closest ranks over ascending samples (0-based), null for none. */
function interpolate(sorted: readonly number[], level: number): number | null {
  if (sorted.length === 0) return null;
  const h = (sorted.length - 1) * level;
  const lower = Math.floor(h);
  const below = Number(sorted[lower]);
  const above = Number(sorted[Math.min(lower + 1, sorted.length - 1)]);
  return below + (h - lower) * (above - below);
}

/** The percentile stats of a value, in a fixed order, with their levels. */
function percentileLevels(stats: ReadonlySet<StatColumn>): [StatColumn, number][] {
  return [...stats].flatMap((stat) => {
    const level = PERCENTILES[stat];
    return level === undefined ? [] : [[stat, level] as [StatColumn, number]];
  });
}

/** A stat other than a percentile (those come from the value's one quantile_cont). */
function duckDbStat(stat: StatColumn, value: string): string {
  return stat === 'stddev' ? `stddev_pop(${value})` : `${stat}(${value})`;
}

function clickHouseStat(stat: StatColumn, value: string): string {
  return stat === 'stddev' ? `stddevPop(${value})` : `${stat}(${value})`;
}

/** Row of a raw query: rid, ms (started_ms), loc, and for page metrics pidx and purl, then v<i>. */
export function rawSql(
  query: AnalyticsQuery,
  dialect: SqlDialect,
  source: string,
  bases: readonly BaseMetric[],
): string {
  const level = bases.some((base) => base.source.level === 'page') ? 'page' : 'run';
  const id = dialect === 'clickhouse' ? 'toString(id)' : 'CAST(id AS VARCHAR)';
  const columns = [`${id} AS rid`, 'started_ms AS ms', 'run_location AS loc'];
  if (level === 'page') columns.push(`${PAGE_ALIAS.page_index} AS pidx`, `${PAGE_ALIAS.page_url} AS purl`);
  columns.push(...bases.map((base, i) => `${sampleExpr(base.source, dialect)} AS v${i}`));
  const order = level === 'page' ? 'ms DESC, rid DESC, pidx ASC' : 'ms DESC, rid DESC';
  const offset = (query.page - 1) * query.limit;
  return `SELECT ${columns.join(', ')} ${rowsFrom(query, dialect, source, level, bases)} ORDER BY ${order} LIMIT ${sqlNumber(query.limit)} OFFSET ${sqlNumber(offset)}`;
}
