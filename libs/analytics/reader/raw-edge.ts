import { addToSketch, sketchKey, sketchKeySql, type Sketch } from '../rollup/sketch.ts';
import { HOUR_MS, ROLLED_METRICS, RUNS_METRIC } from '../rollup/sql.ts';
import { sqlDateTime, sqlNumber, sqlString } from '../sql.ts';
import { whereSql } from './build.ts';
import type { AnalyticsQuery } from './params.ts';

/** A cell's sums for one metric, as the rollup read merges them (rollup-read.ts). */
export interface Merged {
  n: number;
  failures: number;
  retries: number;
  total: number;
  minimum: number;
  maximum: number;
  squares: number;
  sketch: Sketch;
}

export function emptyMerged(): Merged {
  return {
    n: 0,
    failures: 0,
    retries: 0,
    total: 0,
    minimum: Infinity,
    maximum: -Infinity,
    squares: 0,
    sketch: new Map(),
  };
}

/** A raw row of the edges: location, start (ms), has_failures, attempts and v<i> per metric (NULL: no sample). */
export type EdgeRow = Record<string, unknown> & { l: string; ms: number; f: number; a: number };

/**
 * ClickHouse: the raw rows of a rollup read's edges, one per run, for the reader to add to the
 * cells itself (addEdgeRows). Summing them in the rollup statement cost 18.16 about 20 ms of CPU
 * for a busy check's 1,400 edge rows (system.query_log: the statement with its raw part against
 * without it), while selecting them takes 3–5 ms and parsing them well under 1 ms; the reader
 * sends both statements at once. FINAL keeps a redelivered result once; the PREWHERE on the ids
 * is exact under it (sorting-key columns, as in build.ts).
 */
export function clickHouseEdgeRowsSql(
  query: AnalyticsQuery,
  source: string,
  metrics: readonly string[],
  ranges: readonly (readonly [number, number])[],
): string {
  const time = (ms: number) => sqlDateTime(new Date(ms));
  const bounds = ranges.map(
    ([start, end]) =>
      `(started_at >= ${time(Math.floor(start / 1000) * 1000)} AND started_at <= ${time(Math.ceil(end / 1000) * 1000)} ` +
      `AND started_ms >= ${sqlNumber(start)} AND started_ms < ${sqlNumber(end)})`,
  );
  const values = metrics.map((name, i) => {
    const expr = name === RUNS_METRIC ? '0' : ROLLED_METRICS.get(name);
    if (expr === undefined) throw new Error(`no rollup for metric ${name}`);
    return `toFloat64(${expr}) AS v${i}`;
  });
  const ids = `account_id = ${sqlString(query.accountId, 'clickhouse')} AND check_id = ${sqlString(query.checkId, 'clickhouse')}`;
  const prewhere = /\sFINAL$/.test(source) ? ` PREWHERE ${ids}` : '';
  return (
    `SELECT run_location AS l, started_ms AS ms, has_failures AS f, attempts AS a, ${values.join(', ')} ` +
    `FROM ${source}${prewhere} WHERE ${whereSql(query, 'clickhouse')} AND (${bounds.join(' OR ')})`
  );
}

/**
 * Adds edge rows to their cells as the roll's SQL would have: per group (location or none),
 * bucket (the row's hour, in buckets of whole hours) and metric, a sample wherever the metric is
 * not NULL; `cell` finds or creates the sums. Sketch keys come from sketchKey, the same mapping
 * as the SQL's.
 */
export function addEdgeRows(
  rows: readonly EdgeRow[],
  query: AnalyticsQuery,
  metrics: readonly string[],
  sketched: ReadonlySet<string>,
  cell: (g: unknown, b: number, metric: string) => Merged,
): void {
  const size = query.intervalMinutes === null ? null : query.intervalMinutes * 60_000;
  for (const row of rows) {
    const ms = Number(row.ms);
    const g = query.groupBy === 'runLocation' ? String(row.l) : 0;
    // The SQL buckets the row's hour; buckets are whole hours, so the row's own time gives the same.
    const b = size === null ? 0 : Math.floor((Math.floor(ms / HOUR_MS) * HOUR_MS) / size) * size;
    const failed = Number(row.f);
    const retries = Number(row.a) - 1;
    metrics.forEach((name, i) => {
      const raw = row[`v${i}`];
      if (raw === null || raw === undefined) return;
      const x = Number(raw);
      const m = cell(g, b, name);
      m.n += 1;
      m.failures += failed;
      m.retries += retries;
      m.total += x;
      m.minimum = Math.min(m.minimum, x);
      m.maximum = Math.max(m.maximum, x);
      m.squares += x * x;
      if (sketched.has(name)) addToSketch(m.sketch, [sketchKey(x)], [1]);
    });
  }
}

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
