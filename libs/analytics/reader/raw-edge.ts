import { sketchKeySql } from '../rollup/sketch.ts';
import { ROLLED_METRICS, RUNS_METRIC } from '../rollup/sql.ts';
import { sqlString } from '../sql.ts';

/**
 * ClickHouse: the raw rows of a rollup read's edges as rollup rows (metric, hour, run_location,
 * has_failures, runs, retries, total, minimum, maximum, squares, sketch_keys, sketch_counts),
 * aggregated first and unrolled per metric after. The roll's own SQL (rollup/sql.ts) unrolls
 * every raw row into one row per metric with ARRAY JOIN over nullable tuples before grouping,
 * which cost 12–17 ms for a busy check's 1,400 edge rows on 18.16 (system.query_log), against
 * 3–4 ms for the same sums computed as columns. Same values: a metric's samples are the rows
 * where it is not NULL (count, sumIf and the -If sketch skip the others), and a metric with no
 * sample in a cell yields no row, as in the roll. Sketches only for the metrics in `sketched`
 * (the reader merges no other), so the rest carry empty arrays.
 */
export function clickHouseEdgeSql(
  source: string,
  where: string,
  metrics: readonly string[],
  sketched: ReadonlySet<string>,
  prewhere?: string,
): string {
  const columns: string[] = [];
  const tuples = metrics.map((name, i) => {
    const expr = name === RUNS_METRIC ? '0' : ROLLED_METRICS.get(name);
    if (expr === undefined) throw new Error(`no rollup for metric ${name}`);
    const x = `toFloat64(${expr})`;
    columns.push(
      `count(${x}) AS n${i}`,
      `sumIf(attempts, isNotNull(${x})) AS a${i}`,
      `sum(${x}) AS t${i}`,
      `min(${x}) AS lo${i}`,
      `max(${x}) AS hi${i}`,
      `sum(${x} * ${x}) AS q${i}`,
    );
    let keys = 'emptyArrayInt32()';
    let counts = 'emptyArrayUInt64()';
    if (sketched.has(name)) {
      columns.push(
        `sumMapIf([${sketchKeySql(`assumeNotNull(${x})`, 'clickhouse')}], [toUInt64(1)], isNotNull(${x})) AS k${i}`,
      );
      keys = `tupleElement(k${i}, 1)`;
      counts = `tupleElement(k${i}, 2)`;
    }
    // ifNull: with no sample the sums are NULL; that row is dropped below, and the tuple's types stay plain.
    return (
      `tuple(${sqlString(name, 'clickhouse')}, toUInt64(n${i}), toUInt64(a${i} - n${i}), toFloat64(ifNull(t${i}, 0)), ` +
      `toFloat64(ifNull(lo${i}, 0)), toFloat64(ifNull(hi${i}, 0)), toFloat64(ifNull(q${i}, 0)), ${keys}, ${counts})`
    );
  });
  const grouped =
    `SELECT toStartOfHour(started_at) AS hour, run_location, has_failures, ${columns.join(', ')} FROM ${source}` +
    `${prewhere === undefined ? '' : ` PREWHERE ${prewhere}`} WHERE ${where} GROUP BY hour, run_location, has_failures`;
  const field = (n: number) => `tupleElement(m, ${n})`;
  return (
    `SELECT ${field(1)} AS metric, hour, run_location, has_failures, ${field(2)} AS runs, ${field(3)} AS retries, ` +
    `${field(4)} AS total, ${field(5)} AS minimum, ${field(6)} AS maximum, ${field(7)} AS squares, ` +
    `${field(8)} AS sketch_keys, ${field(9)} AS sketch_counts FROM (${grouped}) ARRAY JOIN [${tuples.join(', ')}] AS m ` +
    `WHERE runs > 0`
  );
}
