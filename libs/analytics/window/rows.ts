import { z } from 'zod';
import type { AnalyticsStore } from '../port.ts';
import { finalPrewhere, sampleExpr, whereSql, type RunFilter } from '../reader/build.ts';
import { sqlNumber } from '../sql.ts';
import { baseMetrics, type BaseMetric } from '../reader/metrics.ts';
import type { ResultCheckType } from '#domain';

/**
 * One check's runs since a point in time, held column by column and sorted by start time, so a
 * window of them is a binary search and an aggregate a loop over typed arrays. Only the columns
 * run-level analytics read: page metrics and raw runs still go to the engine.
 */
export interface CheckRows {
  /** started_ms, ascending. */
  ms: Float64Array;
  /** run_location, interned: equal locations are the same string. */
  location: string[];
  statusCode: (number | null)[];
  failed: Uint8Array;
  /** attempts - 1. */
  retries: Float64Array;
  heartbeat: (string | null)[];
  /** Per run-level sample expression (BaseMetric source.sql): the value, NaN where it is NULL. */
  values: Map<string, Float64Array>;
}

/** The run-level sample expressions of a check type, each once. */
export function runExpressions(checkType: ResultCheckType): string[] {
  const bases: readonly BaseMetric[] = baseMetrics[checkType];
  return [...new Set(bases.flatMap((base) => (base.source.level === 'run' ? [base.source.sql] : [])))];
}

/**
 * The SELECT of a check's runs with started_ms >= fromMs (no upper bound: everything the engine
 * holds, future-dated runs too), through the store's deduplicating source, in start order; at
 * most limit of them, so finding a check too busy to hold never ships all its runs.
 */
export function checkRowsSql(
  store: Pick<AnalyticsStore, 'dialect' | 'source'>,
  scope: { accountId: string; checkId: string; checkType: ResultCheckType },
  fromMs: number,
  limit: number,
): string {
  const { dialect, source } = store;
  // whereSql bounds both ends; an end past any timestamp leaves the upper bound inert.
  const filter: RunFilter = {
    accountId: scope.accountId,
    checkId: scope.checkId,
    window: { from: new Date(fromMs), to: new Date(END_OF_TIME) },
    statuses: [],
  };
  const expressions = runExpressions(scope.checkType).map(
    (sql, i) => `${sampleExpr({ level: 'run', sql }, dialect)} AS e${i}`,
  );
  const columns = [
    'started_ms AS ms',
    'run_location AS loc',
    'status_code AS sc',
    'has_failures AS f',
    'attempts AS a',
    'heartbeat_status AS hb',
    ...expressions,
  ];
  return `SELECT ${columns.join(', ')} FROM ${source}${finalPrewhere(filter, dialect, source)} WHERE ${whereSql(filter, dialect)} ORDER BY ms LIMIT ${sqlNumber(limit)}`;
}

/** 2100-01-01: later than any run the schema can hold on both engines' DateTime. */
const END_OF_TIME = 4_102_444_800_000;

const nullableNumber = z.union([z.number(), z.string(), z.null()]).transform((v) => (v === null ? null : Number(v)));
const rowSchema = z.looseObject({
  ms: z.union([z.number(), z.string()]).transform(Number),
  loc: z.string(),
  sc: nullableNumber,
  f: z.union([z.number(), z.string(), z.boolean()]).transform(Number),
  a: z.union([z.number(), z.string()]).transform(Number),
  hb: z.string().nullable(),
});

/** Reads the rows of checkRowsSql back, validated, into columns. */
export function toCheckRows(rows: readonly unknown[], checkType: ResultCheckType): CheckRows {
  const expressions = runExpressions(checkType);
  const n = rows.length;
  const out: CheckRows = {
    ms: new Float64Array(n),
    location: new Array<string>(n),
    statusCode: new Array<number | null>(n),
    failed: new Uint8Array(n),
    retries: new Float64Array(n),
    heartbeat: new Array<string | null>(n),
    values: new Map(expressions.map((sql) => [sql, new Float64Array(n)])),
  };
  const columns = expressions.map((sql) => out.values.get(sql)!);
  const locations = new Map<string, string>();
  for (let i = 0; i < n; i++) {
    const raw = rows[i] as Record<string, unknown>;
    const row = rowSchema.parse(raw);
    out.ms[i] = row.ms;
    const location = locations.get(row.loc) ?? row.loc;
    locations.set(location, location);
    out.location[i] = location;
    out.statusCode[i] = row.sc;
    out.failed[i] = row.f;
    out.retries[i] = row.a - 1;
    out.heartbeat[i] = row.hb;
    columns.forEach((column, e) => {
      const value = raw[`e${e}`];
      column[i] = value === null || value === undefined ? Number.NaN : Number(value);
    });
  }
  return out;
}

/** First index whose ms is >= at (rows.ms ascending). */
export function lowerBound(ms: Float64Array, at: number): number {
  let lo = 0;
  let hi = ms.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ms[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
