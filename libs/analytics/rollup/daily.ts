import { sqlDateTime, sqlString, type SqlDialect } from '../sql.ts';
import type { RollupExecutor } from './maintain.ts';
import { HOUR_MS } from './sql.ts';

export const DAILY_TABLE = 'check_rollups_daily';
export const DAY_MS = 24 * HOUR_MS;

/**
 * Daily rollups: the hourly rollups (rollup/sql.ts) of one UTC day summed per account, check,
 * metric and pass/fail, without location. Sums, minimum and maximum stay exact; sketches merge by
 * adding counts per key, which is exactly what merging the day's hourly sketches at read time
 * gives, so a daily row answers the same as its hours (percentiles within the sketch's bound).
 *
 * They are derived from rolled rows, never from the raw ones (the hours' rows without location,
 * themselves sums of the hourly rows), and re-derived for a day each time any of its hours is
 * rolled, re-rolled or rebuilt (maintain.ts). A reader takes a daily
 * row only for a day that ends at or before the `completed` watermark, so a rewind (which moves
 * the watermark back) sends readers back to the hourly and raw rows until the day is rolled again.
 *
 * Hourly rollups without location (NO_LOCATION_TABLE) are derived the same way, an hour at a
 * time: a busy check's window has up to two part-days at its edges, read hour by hour, and the
 * hourly rows there are one per location (5×) with a sketch each; merging those sketches was
 * most of a ClickHouse busy read (sumMap over ~450 rows per metric, about 5 ms on 18.16).
 */
export const NO_LOCATION_TABLE = 'check_rollups_no_location';

/** SELECT producing daily rows (the table's columns, in order) from hourly rows of `hourly` matching `where`. */
export function dailySelectSql(dialect: SqlDialect, hourly: string, where: string): string {
  return summedSelectSql(dialect, hourly, where, 'day');
}

/**
 * SELECT summing hourly rows of `hourly` matching `where` over locations, per account, check,
 * metric, pass/fail and `grain`: the start of the row's UTC day ('day', the daily table's
 * columns) or its own hour ('hour', the table without location's columns, rollup/no-location.ts).
 */
export function summedSelectSql(
  dialect: SqlDialect,
  hourly: string,
  where: string,
  grain: 'day' | 'hour',
  /** ClickHouse: filter in PREWHERE (only for conditions on sorting-key columns, under FINAL). */
  prewhere = false,
): string {
  const keys = `account_id, check_id, metric, ${grain}, has_failures`;
  if (dialect === 'clickhouse') {
    const time = grain === 'day' ? 'toStartOfDay(hour) AS day' : 'hour';
    const grouped =
      `SELECT account_id, check_id, metric, ${time}, has_failures, sum(runs) AS d_runs, ` +
      `sum(retries) AS d_retries, sum(total) AS d_total, min(minimum) AS d_min, max(maximum) AS d_max, ` +
      `sum(squares) AS d_squares, sumMap(sketch_keys, sketch_counts) AS sk FROM ${hourly} ${prewhere ? 'PREWHERE' : 'WHERE'} ${where} ` +
      `GROUP BY account_id, check_id, metric, ${grain}, has_failures`;
    return (
      `SELECT ${keys}, d_runs, d_retries, d_total, d_min, d_max, d_squares, ` +
      `tupleElement(sk, 1) AS d_keys, tupleElement(sk, 2) AS d_counts FROM (${grouped})`
    );
  }
  const time = grain === 'day' ? `date_trunc('day', hour) AS day` : 'hour';
  const stats =
    `SELECT account_id, check_id, metric, ${time}, has_failures, CAST(sum(runs) AS UBIGINT) AS d_runs, ` +
    `CAST(sum(retries) AS UBIGINT) AS d_retries, sum(total) AS d_total, min(minimum) AS d_min, ` +
    `max(maximum) AS d_max, sum(squares) AS d_squares FROM ${hourly} WHERE ${where} GROUP BY ALL`;
  const flat =
    `SELECT account_id, check_id, metric, ${time}, has_failures, unnest(sketch_keys) AS k, ` +
    `unnest(sketch_counts) AS c FROM ${hourly} WHERE ${where}`;
  const keyed = `SELECT ${keys}, k, CAST(sum(c) AS UBIGINT) AS c FROM flat GROUP BY ALL`;
  // One list of (key, count) pairs sorted once, rather than two lists each ordered by key in the
  // aggregate: the same arrays for half the CPU (100 -> 46 ms for 3,000 rows on DuckDB 1.x).
  const lists = `SELECT ${keys}, list_sort(list({'k': k, 'c': c})) AS kc FROM keyed GROUP BY ALL`;
  return (
    `SELECT * FROM (WITH stats AS (${stats}), flat AS (${flat}), keyed AS (${keyed}), lists AS (${lists}) ` +
    `SELECT stats.account_id, stats.check_id, stats.metric, stats.${grain}, stats.has_failures, d_runs, d_retries, ` +
    `d_total, d_min, d_max, d_squares, coalesce(list_transform(kc, e -> e.k), []::INTEGER[]), ` +
    `coalesce(list_transform(kc, e -> e.c), []::UBIGINT[]) ` +
    `FROM stats LEFT JOIN lists USING (${keys})) AS summed`
  );
}

/** The days [from, to) touch: from the start of from's day to the end of the day before to. */
export function daySpan(from: number, to: number): { from: number; to: number } {
  return { from: Math.floor(from / DAY_MS) * DAY_MS, to: Math.ceil(to / DAY_MS) * DAY_MS };
}

/**
 * Replaces the daily rows of the days overlapping [from, to), and the rows without location of
 * the hours overlapping it (optionally for some accounts and checks only), with sums of their
 * hourly rows. Call after the hours are rolled, inside the same atomic block on DuckDB; on
 * ClickHouse the newer rows win by run count, as hourly ones do.
 */
export async function rollDays(
  x: RollupExecutor,
  hourlyTable: string,
  from: number,
  to: number,
  ids?: { accounts: Iterable<string>; checks: Iterable<string> },
): Promise<void> {
  const list = (values: Iterable<string>) => [...values].map((id) => sqlString(id, x.dialect)).join(', ');
  const only =
    ids === undefined ? '' : `account_id IN (${list(ids.accounts)}) AND check_id IN (${list(ids.checks)}) AND `;
  const between = (column: string, start: number, end: number) =>
    `${only}${column} >= ${sqlDateTime(new Date(start))} AND ${column} < ${sqlDateTime(new Date(end))}`;
  // Every condition is on sorting-key columns, which all copies of a rollup row share, so on
  // ClickHouse it goes in PREWHERE and FINAL merges only the rows kept.
  const derive = async (table: string, from: string, column: 'day' | 'hour', span: { from: number; to: number }) => {
    if (span.to <= span.from) return;
    if (x.dialect === 'duckdb') await x.run(`DELETE FROM ${table} WHERE ${between(column, span.from, span.to)}`);
    const hours = between('hour', span.from, span.to);
    const source = x.dialect === 'clickhouse' ? `${from} FINAL` : from;
    await x.run(
      `INSERT INTO ${table} ${summedSelectSql(x.dialect, source, hours, column, x.dialect === 'clickhouse')}`,
    );
  };
  await derive(NO_LOCATION_TABLE, hourlyTable, 'hour', {
    from: Math.floor(from / HOUR_MS) * HOUR_MS,
    to: Math.ceil(to / HOUR_MS) * HOUR_MS,
  });
  // Days from the rows without location, which every roll, re-roll and rebuild keeps for every
  // hour (migration 6 filled them for hours rolled before): the same sums over a fifth of the rows.
  await derive(DAILY_TABLE, NO_LOCATION_TABLE, 'day', daySpan(from, to));
}
