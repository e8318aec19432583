/**
 * The matrix's cells on chdb (current ClickHouse, in process): no server to start the API on, so
 * each cell is timed through the reader (the endpoint's code without HTTP and the answer cache),
 * on the same data shape as the other engines.
 */
import { createAnalyticsReader, parseAnalyticsParams, type AnalyticsStore } from '#analytics';
import { createLogger } from '#core';
import type { CheckResult } from '#domain';
import { log } from '../support/report.ts';
import { timeIt, type Summary } from '../support/stats.ts';

export interface ChdbCells {
  count: number;
  iterations: number;
  /** Batches to load, in order. */
  batches: () => Iterable<CheckResult[]>;
  request: (cell: number, i: number) => { params: Record<string, string>; accountId: string; checkId: string };
  label: (cell: number) => string;
  endMs: number;
}

export async function chdbRun(spec: ChdbCells): Promise<{ timings: Record<number, Summary>; loadSeconds: number }> {
  const { createChdbAnalyticsStore } = await import('../../libs/analytics/chdb-engine.ts');
  const store: AnalyticsStore = createChdbAnalyticsStore({
    database: `vigil_bench_chdb_${Date.now()}`,
    log: createLogger({ level: 'silent' }),
  });
  try {
    await store.migrate();
    const started = performance.now();
    for (const batch of spec.batches()) await store.insert(batch);
    const loadSeconds = (performance.now() - started) / 1000;
    log(`chdb: loaded in ${loadSeconds.toFixed(1)} s`);
    // As on the other engines: the load is a backfill, rolled before the cells are timed.
    const rollStarted = performance.now();
    await store.rollups.advance();
    log(`chdb: rolled in ${((performance.now() - rollStarted) / 1000).toFixed(1)} s`);
    const reader = createAnalyticsReader(store);
    const timings: Record<number, Summary> = {};
    for (let c = 0; c < spec.count; c++) {
      timings[c] = await timeIt(spec.iterations, (i) => {
        const { params, accountId, checkId } = spec.request(c, i);
        const parsed = parseAnalyticsParams(params, { checkType: 'API', now: new Date(spec.endMs) });
        return reader.read({ ...parsed, accountId, checkId, checkType: 'API' });
      });
      log(`chdb ${spec.label(c)}: reader p50 ${timings[c]!.p50} ms`);
    }
    return { timings, loadSeconds };
  } finally {
    await store.close();
  }
}
