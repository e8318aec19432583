import { addToSketch, sketchKey, type Sketch } from '../rollup/sketch.ts';
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
