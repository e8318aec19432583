import { baseMetrics } from '../reader/metrics.ts';
import { sqlString, type SqlDialect } from '../sql.ts';
import { sketchKeySql } from './sketch.ts';

export const ROLLUP_TABLE = 'check_rollups';
export const WATERMARK_TABLE = 'rollup_watermarks';
export const HOUR_MS = 3_600_000;
/** The run count row: metric '' carries runs, failures (by has_failures) and retries of every run. */
export const RUNS_METRIC = '';

/**
 * Every run-level base metric of any check type, once by name, with the expression its samples
 * come from. A name means the same expression in every type (dns is timing_dns for API and TCP),
 * so one rollup row per name serves them all.
 */
export const ROLLED_METRICS: ReadonlyMap<string, string> = new Map(
  Object.values(baseMetrics)
    .flat()
    .flatMap((base) => (base.source.level === 'run' ? [[base.name, base.source.sql] as const] : [])),
);

/**
 * SELECT producing rollup rows (the table's columns, in order) from raw results matching
 * `where`: one row per account, check, metric, hour, location and has_failures, with runs (the
 * samples: runs where the metric is not NULL), retries, total, minimum, maximum, squares and the
 * sketch as parallel key and count arrays. `source` must be the deduplicated raw source (FINAL on
 * ClickHouse), so a redelivered result never counts twice here either.
 */
export function rollSelectSql(
  dialect: SqlDialect,
  source: string,
  where: string,
  metrics: readonly string[] = [...ROLLED_METRICS.keys()],
  /** ClickHouse only: a PREWHERE on sorting-key columns, so FINAL merges only the rows it keeps. */
  prewhere?: string,
): string {
  const pairs = [RUNS_METRIC, ...metrics.filter((name) => name !== RUNS_METRIC)].map((name) => {
    const expr = name === RUNS_METRIC ? '0' : ROLLED_METRICS.get(name);
    if (expr === undefined) throw new Error(`no rollup for metric ${name}`);
    return { name, expr };
  });
  const keys = 'account_id, check_id, metric, hour, run_location, has_failures';
  if (dialect === 'clickhouse') {
    const tuples = pairs.map(({ name, expr }) => `tuple(${sqlString(name, dialect)}, toNullable(toFloat64(${expr})))`);
    const samples =
      `SELECT account_id, check_id, tupleElement(mv, 1) AS metric, toStartOfHour(started_at) AS hour, run_location, ` +
      `has_failures, attempts, assumeNotNull(tupleElement(mv, 2)) AS x FROM ${source} ` +
      `ARRAY JOIN arrayFilter(t -> isNotNull(tupleElement(t, 2)), [${tuples.join(', ')}]) AS mv` +
      `${prewhere === undefined ? '' : ` PREWHERE ${prewhere}`} WHERE ${where}`;
    const grouped =
      `SELECT ${keys}, count() AS runs, toUInt64(sum(attempts) - count()) AS retries, sum(x) AS total, min(x) AS minimum, ` +
      `max(x) AS maximum, sum(x * x) AS squares, sumMap([${sketchKeySql('x', dialect)}], [toUInt64(1)]) AS sk ` +
      `FROM (${samples}) GROUP BY ${keys}`;
    return `SELECT ${keys}, runs, retries, total, minimum, maximum, squares, tupleElement(sk, 1) AS sketch_keys, tupleElement(sk, 2) AS sketch_counts FROM (${grouped})`;
  }
  const structs = pairs.map(({ name, expr }) => `{'m': ${sqlString(name, dialect)}, 'v': CAST(${expr} AS DOUBLE)}`);
  const samples =
    `SELECT account_id, check_id, s.m AS metric, date_trunc('hour', started_at) AS hour, run_location, has_failures, ` +
    `attempts, s.v AS x FROM (SELECT account_id, check_id, started_at, run_location, has_failures, attempts, ` +
    `unnest([${structs.join(', ')}]) AS s FROM ${source} WHERE ${where}) AS unrolled WHERE s.v IS NOT NULL`;
  const grouped =
    `SELECT ${keys}, CAST(count(*) AS UBIGINT) AS runs, CAST(sum(attempts) - count(*) AS UBIGINT) AS retries, ` +
    `sum(x) AS total, min(x) AS minimum, max(x) AS maximum, sum(x * x) AS squares, ` +
    `histogram(${sketchKeySql('x', dialect)}) AS sk FROM (${samples}) AS samples GROUP BY ${keys}`;
  return `SELECT ${keys}, runs, retries, total, minimum, maximum, squares, map_keys(sk) AS sketch_keys, map_values(sk) AS sketch_counts FROM (${grouped}) AS grouped`;
}

/** The hour-start column of a rollup row as epoch milliseconds. */
export function hourMsSql(dialect: SqlDialect): string {
  return dialect === 'clickhouse' ? 'toUInt64(toUInt32(hour)) * 1000' : 'epoch_ms(hour)';
}

/** A scalar subquery: the end (ms) of the hours whose rollups are complete; 0 before the first roll. */
export function completedSql(dialect: SqlDialect): string {
  const latest = dialect === 'clickhouse' ? 'argMax(value_ms, set_ms)' : 'coalesce(arg_max(value_ms, set_ms), 0)';
  return `(SELECT ${latest} FROM ${WATERMARK_TABLE} WHERE name = 'completed')`;
}
