import { sqlNumber } from '../sql.ts';
import { DAILY_TABLE, NO_LOCATION_TABLE } from './daily.ts';
import { ROLLUP_TABLE, WATERMARK_TABLE } from './sql.ts';

/**
 * ClickHouse only: the `completed` watermark, also kept as one row in each rollup table, so a
 * rollup read learns it from the table it reads anyway, in the same snapshot of that table's
 * parts. A scalar subquery over rollup_watermarks in every rollup read cost chdb about 1.5 of a
 * busy check's 14.5 ms statement (one table read more); the row costs about 0.2.
 *
 * The row sits at a key no result can have: the nil account and check (ids are random v4 UUIDs),
 * a metric name no rolled metric has, and a time far past any window a reader reads from the
 * rollups (stored ranges end at the watermark, which never passes the current hour). Its version
 * column `runs` is the mark's set_ms, so FINAL keeps the latest mark, as argMax(value_ms, set_ms)
 * does on rollup_watermarks; `total` is the watermark. Rebuilds drop it with every partition: a
 * reader that finds none takes the raw rows (exact) until the next mark writes it again.
 */
export const WATERMARK_ROW = {
  id: '00000000-0000-0000-0000-000000000000',
  metric: '~completed',
  time: '2100-01-01 00:00:00',
} as const;

/** The partition the row's time falls in (toYYYYMM). */
const PARTITION = '210001';

/** The rollup tables that carry the row, with their time column. */
const TABLES: readonly (readonly [string, 'hour' | 'day'])[] = [
  [ROLLUP_TABLE, 'hour'],
  [NO_LOCATION_TABLE, 'hour'],
  [DAILY_TABLE, 'day'],
];

/** One INSERT per rollup table, writing the row for a `completed` mark of `value` set at `setMs`. */
export function watermarkRowInserts(value: number, setMs: number): string[] {
  const { id, metric, time } = WATERMARK_ROW;
  return TABLES.map(
    ([table, column]) =>
      `INSERT INTO ${table} (account_id, check_id, metric, ${column}, runs, total) ` +
      `VALUES ('${id}', '${id}', '${metric}', '${time}', ${sqlNumber(setMs)}, ${sqlNumber(value)})`,
  );
}

/**
 * Statements that merge each table's copies of the row into one part: every mark adds a part,
 * and FINAL over the few parts a day of marks leaves before the server merges them cost a rollup
 * read about as much as the scalar subquery the row replaces (chdb: 18.5 against 17.0 ms).
 */
export function watermarkRowMerges(): string[] {
  return TABLES.map(([table]) => `OPTIMIZE TABLE ${table} PARTITION ${PARTITION} FINAL`);
}

/** A migration's statements: the row in each table from the watermark already marked, if any. */
export function watermarkRowBackfill(): string[] {
  const { id, metric, time } = WATERMARK_ROW;
  const latest =
    `SELECT max(set_ms) AS s, argMax(value_ms, set_ms) AS v, count() AS c FROM ${WATERMARK_TABLE} ` +
    `WHERE name = 'completed'`;
  return TABLES.map(
    ([table, column]) =>
      `INSERT INTO ${table} (account_id, check_id, metric, ${column}, runs, total) ` +
      `SELECT toUUID('${id}'), toUUID('${id}'), '${metric}', toDateTime('${time}', 'UTC'), s, toFloat64(v) ` +
      `FROM (${latest}) WHERE c > 0`,
  );
}

/** A filter (on sorting-key columns only, so it may join a PREWHERE under FINAL) that keeps the row. */
export function watermarkRowFilter(timeColumn: string): string {
  const { id, metric, time } = WATERMARK_ROW;
  return `(account_id = '${id}' AND check_id = '${id}' AND metric = '${metric}' AND ${timeColumn} = '${time}')`;
}
