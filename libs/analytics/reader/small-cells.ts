import type { AnalyticsStore } from '../port.ts';
import { aggregateSql, finishAggregateRows, type AggregatePlan, type AggregateRow } from './build.ts';
import type { AnalyticsQuery } from './params.ts';

/** A cell read from rollups whose percentiles must be exact: too few samples for the sketch. */
export interface SmallCell {
  row: AggregateRow;
  /** The value columns (valueAlias) to take from the exact answer. */
  columns: string[];
}

/** The key both paths give a cell: its group and bucket start. */
export const cellKey = (g: unknown, b: unknown): string => JSON.stringify([g, Number(b)]);

/**
 * Fills the percentiles of small cells from one exact statement over just the buckets they span,
 * instead of sending the whole answer down the exact path. The common case is the bucket of the
 * day (or hours) that has just begun: a busy check's daily buckets hold under SKETCH_ABOVE runs
 * for the first hours of each UTC day, which sent every such answer to the exact path.
 * Buckets start on epoch multiples of the interval, so a narrower window keeps each cell whole.
 * Returns false when that span is most of the window (the exact path is then no dearer) or a
 * cell is missing from the exact answer; the caller then takes the exact path for everything.
 */
export async function fillSmallCells(
  store: AnalyticsStore,
  query: AnalyticsQuery,
  plan: AggregatePlan,
  cells: readonly SmallCell[],
): Promise<boolean> {
  if (cells.length === 0) return true;
  if (query.intervalMinutes === null) return false;
  const size = query.intervalMinutes * 60_000;
  const starts = cells.map((cell) => Number(cell.row.b));
  const from = Math.max(query.window.from.getTime(), Math.min(...starts));
  const to = Math.min(query.window.to.getTime(), Math.max(...starts) + size);
  const whole = query.window.to.getTime() - query.window.from.getTime();
  if (to - from > whole / 2) return false;
  const narrowed: AnalyticsQuery = { ...query, window: { from: new Date(from), to: new Date(to) } };
  const exact = finishAggregateRows(
    await store.query<AggregateRow>(aggregateSql(narrowed, store.dialect, store.source, plan)),
    plan,
    store.dialect,
  );
  const byCell = new Map(exact.map((row) => [cellKey(row.g, row.b), row]));
  for (const { row, columns } of cells) {
    const found = byCell.get(cellKey(row.g, row.b));
    if (found === undefined) return false;
    for (const column of columns) row[column] = found[column];
  }
  return true;
}
