/**
 * Issue 26's analytics targets, one line per engine and query, from the matrix's own figures:
 * one check (3 metrics, 30 days, one value) p50 ≤ 10 ms through the API and no slower than
 * PostgreSQL; the busy check (3 and 12 metrics) at least 10× PostgreSQL. chdb has no API here,
 * so its figure is the reader's (the endpoint's code without HTTP and the answer cache).
 */
import { ratio, type Summary } from '../support/stats.ts';

export interface VerdictCell {
  hot: boolean;
  window: string;
  metrics: readonly string[];
  interval: number | null;
  groupBy: boolean;
}

export function verdictRows(
  cells: readonly VerdictCell[],
  engines: Record<string, ((c: number) => Summary | undefined) | undefined>,
  postgres: ((c: number) => Summary | undefined) | undefined,
): (string | number)[][] {
  const find = (hot: boolean, metrics: number) =>
    cells.findIndex(
      (cell) =>
        cell.hot === hot &&
        cell.window === '30d' &&
        cell.metrics.length === metrics &&
        cell.interval === null &&
        !cell.groupBy,
    );
  const targets = [
    { query: 'one check, 3 metrics', c: find(false, 3), busy: false },
    { query: 'busy check, 3 metrics', c: find(true, 3), busy: true },
    { query: 'busy check, 12 metrics', c: find(true, 12), busy: true },
  ];
  const rows: (string | number)[][] = [];
  for (const [engine, timing] of Object.entries(engines)) {
    if (timing === undefined) continue;
    for (const { query, c, busy } of targets) {
      if (c < 0) continue;
      const own = timing(c);
      const pg = postgres?.(c);
      if (own === undefined) continue;
      const times = pg === undefined ? undefined : ratio(pg.p50, own.p50);
      const target = busy ? '≥ 10× PostgreSQL' : 'p50 ≤ 10 ms, ≥ 1× PostgreSQL';
      const met = times === undefined ? 'no PostgreSQL figure' : busy ? times >= 10 : own.p50 <= 10 && times >= 1;
      rows.push([
        engine,
        query,
        own.p50,
        pg?.p50 ?? '',
        times ?? '',
        target,
        met === true ? 'met' : met === false ? 'missed' : met,
      ]);
    }
  }
  return rows;
}
