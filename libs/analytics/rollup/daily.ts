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
 * They are derived from the hourly rows, never from the raw ones, and re-derived for a day each
 * time any of its hours is rolled, re-rolled or rebuilt (maintain.ts). A reader takes a daily
 * row only for a day that ends at or before the `completed` watermark, so a rewind (which moves
 * the watermark back) sends readers back to the hourly and raw rows until the day is rolled again.
 */
const KEYS = 'account_id, check_id, metric, day, has_failures';

/** SELECT producing daily rows (the table's columns, in order) from hourly rows of `hourly` matching `where`. */
export function dailySelectSql(dialect: SqlDialect, hourly: string, where: string): string {
  if (dialect === 'clickhouse') {
    const grouped =
      `SELECT account_id, check_id, metric, toStartOfDay(hour) AS day, has_failures, sum(runs) AS d_runs, ` +
      `sum(retries) AS d_retries, sum(total) AS d_total, min(minimum) AS d_min, max(maximum) AS d_max, ` +
      `sum(squares) AS d_squares, sumMap(sketch_keys, sketch_counts) AS sk FROM ${hourly} WHERE ${where} ` +
      `GROUP BY account_id, check_id, metric, day, has_failures`;
    return (
      `SELECT ${KEYS}, d_runs, d_retries, d_total, d_min, d_max, d_squares, ` +
      `tupleElement(sk, 1) AS d_keys, tupleElement(sk, 2) AS d_counts FROM (${grouped})`
    );
  }
  const day = `date_trunc('day', hour) AS day`;
  const stats =
    `SELECT account_id, check_id, metric, ${day}, has_failures, CAST(sum(runs) AS UBIGINT) AS d_runs, ` +
    `CAST(sum(retries) AS UBIGINT) AS d_retries, sum(total) AS d_total, min(minimum) AS d_min, ` +
    `max(maximum) AS d_max, sum(squares) AS d_squares FROM ${hourly} WHERE ${where} GROUP BY ALL`;
  const flat =
    `SELECT account_id, check_id, metric, ${day}, has_failures, unnest(sketch_keys) AS k, ` +
    `unnest(sketch_counts) AS c FROM ${hourly} WHERE ${where}`;
  const keyed = `SELECT ${KEYS}, k, CAST(sum(c) AS UBIGINT) AS c FROM flat GROUP BY ALL`;
  const lists = `SELECT ${KEYS}, list(k ORDER BY k) AS d_keys, list(c ORDER BY k) AS d_counts FROM keyed GROUP BY ALL`;
  return (
    `SELECT * FROM (WITH stats AS (${stats}), flat AS (${flat}), keyed AS (${keyed}), lists AS (${lists}) ` +
    `SELECT stats.account_id, stats.check_id, stats.metric, stats.day, stats.has_failures, d_runs, d_retries, ` +
    `d_total, d_min, d_max, d_squares, coalesce(d_keys, []::INTEGER[]), coalesce(d_counts, []::UBIGINT[]) ` +
    `FROM stats LEFT JOIN lists USING (${KEYS})) AS daily`
  );
}

/** The days [from, to) touch: from the start of from's day to the end of the day before to. */
export function daySpan(from: number, to: number): { from: number; to: number } {
  return { from: Math.floor(from / DAY_MS) * DAY_MS, to: Math.ceil(to / DAY_MS) * DAY_MS };
}

/**
 * Replaces the daily rows of the days overlapping [from, to) (optionally for some accounts and
 * checks only) with sums of their hourly rows. Call after the hours are rolled, inside the same
 * atomic block on DuckDB; on ClickHouse the newer rows win by run count, as hourly ones do.
 */
export async function rollDays(
  x: RollupExecutor,
  hourlyTable: string,
  from: number,
  to: number,
  ids?: { accounts: Iterable<string>; checks: Iterable<string> },
): Promise<void> {
  const span = daySpan(from, to);
  if (span.to <= span.from) return;
  const list = (values: Iterable<string>) => [...values].map((id) => sqlString(id, x.dialect)).join(', ');
  const only =
    ids === undefined ? '' : `account_id IN (${list(ids.accounts)}) AND check_id IN (${list(ids.checks)}) AND `;
  const hours = `${only}hour >= ${sqlDateTime(new Date(span.from))} AND hour < ${sqlDateTime(new Date(span.to))}`;
  if (x.dialect === 'duckdb')
    await x.run(
      `DELETE FROM ${DAILY_TABLE} WHERE ${only}day >= ${sqlDateTime(new Date(span.from))} AND day < ${sqlDateTime(new Date(span.to))}`,
    );
  const source = x.dialect === 'clickhouse' ? `${hourlyTable} FINAL` : hourlyTable;
  await x.run(`INSERT INTO ${DAILY_TABLE} ${dailySelectSql(x.dialect, source, hours)}`);
}
