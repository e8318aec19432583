import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { services, uniqueSuffix } from '#test-support';
import type { AnalyticsStore } from '../port.ts';
import { createAnalyticsReader, type AnalyticsReaderOptions } from '../reader/reader.ts';
import { parseAnalyticsParams } from '../reader/params.ts';
import { DAILY_TABLE, DAY_MS } from './daily.ts';
import { differences, results, ROLLUP_METRICS, rollupEngines } from './rollup-fixtures.ts';
import { HOUR_MS } from './sql.ts';

/**
 * Daily rollups and the reader's three-part seam (daily rows, hourly rows at the edges, raw rows
 * for unrolled hours) against the exact path on every engine: percentiles within the sketch's
 * bound (SKETCH_ALPHA, relative), everything else exact up to rounding; across windows that
 * start and end mid-day and mid-hour, with unrolled hours, after a late re-roll, a redelivery,
 * a rewind and a rebuild. Daily rows must equal the sums of their hours at each step.
 */
const log = createLogger({ level: 'silent' });
const database = `vigil_test_daily_${uniqueSuffix()}`;
const dir = mkdtempSync(join(tmpdir(), 'vigil-daily-'));
const NOW = Date.parse('2024-03-01T00:30:00Z');
const START = NOW - 10 * DAY_MS;
const RUNS = 30_000;
const MINUTE = 60_000;
// Until 'rolls the rest', the stores' clock lags: the last 36 hours are not rolled.
let now = NOW - 36 * HOUR_MS + 20 * MINUTE;
const clock = () => now;

const engines = rollupEngines({ dir, file: 'daily.duckdb', database, log, clock });

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await fetch(services().CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${database}` }).catch(
    () => undefined,
  );
});

const METRICS = [...ROLLUP_METRICS, 'totalRequests'].join(',');

const at = (ms: number) => String(ms / 1000);
const windows: Record<string, string>[] = [
  // Starts mid-day and mid-hour, ends mid-hour in the unrolled hours.
  { from: at(START + DAY_MS + 5 * HOUR_MS + 17 * MINUTE), to: at(NOW - 7 * MINUTE) },
  // Whole days only.
  { from: at(START + DAY_MS), to: at(START + 8 * DAY_MS) },
  // One whole day with an hour each side, and daily buckets of failures only.
  { from: at(START + 2 * DAY_MS - HOUR_MS), to: at(START + 4 * DAY_MS + HOUR_MS) },
  { from: at(START + 13 * MINUTE), to: at(NOW), aggregationInterval: '1440', filterByStatus: 'failure' },
  // Whole hours at both ends: no raw rows at all, before the unrolled hours.
  { from: at(START - 30 * MINUTE + 2 * DAY_MS - 3 * HOUR_MS), to: at(START - 30 * MINUTE + 6 * DAY_MS + 5 * HOUR_MS) },
  // Inside one day: no daily rows, hours and raw edges only.
  { from: at(START + 2 * DAY_MS + 3 * HOUR_MS + 5 * MINUTE), to: at(START + 2 * DAY_MS + 20 * HOUR_MS) },
];

describe.each(engines)('daily rollups on $name', ({ open }) => {
  let store: AnalyticsStore;
  const accountId = randomUUID();
  const checkId = randomUUID();
  const data = results(accountId, checkId, RUNS, START, 10 * DAY_MS);
  const sqls: string[] = [];

  const ask = (params: Record<string, string>, options: AnalyticsReaderOptions, check = checkId) => {
    const spy: AnalyticsStore = {
      ...store,
      query: (sql) => {
        sqls.push(sql);
        return store.query(sql);
      },
    };
    const request = parseAnalyticsParams({ metrics: METRICS, ...params }, { checkType: 'API', now: new Date(NOW) });
    return createAnalyticsReader(spy, options).read({ ...request, accountId, checkId: check, checkType: 'API' });
  };
  /** Asks through daily rows (every cell from the sketch) and the default path, against the exact path. */
  const agree = async (params: Record<string, string>, check = checkId) => {
    const exact = await ask(params, { rollups: false }, check);
    sqls.length = 0;
    expect(differences(await ask(params, { rollups: true, sketchAbove: 0 }, check), exact)).toEqual([]);
    const usedDaily = sqls.some((sql) => sql.includes(DAILY_TABLE));
    expect(differences(await ask(params, { rollups: true }, check), exact)).toEqual([]);
    return { exact, usedDaily };
  };

  /** Daily rows equal to the sums of their rolled hours, for every day that ended by the watermark. */
  const dailyMatchesHours = async () => {
    const { completed } = await store.rollups.watermarks();
    const h = store.dialect === 'clickhouse' ? 'toUInt32(hour)' : 'epoch(hour)';
    const d = store.dialect === 'clickhouse' ? 'toUInt32(day)' : 'epoch(day)';
    const hourly = await store.query<Record<string, unknown>>(
      `SELECT metric, ${h} AS t, has_failures, runs, retries, total, minimum, maximum, squares, sketch_keys, sketch_counts FROM ${store.rollups.source} WHERE check_id = '${checkId}'`,
    );
    const daily = await store.query<Record<string, unknown>>(
      `SELECT metric, ${d} AS t, has_failures, runs, retries, total, minimum, maximum, squares, sketch_keys, sketch_counts FROM ${store.rollups.daily} WHERE check_id = '${checkId}'`,
    );
    const summed = (rows: Record<string, unknown>[], span: number) => {
      const out = new Map<
        string,
        { runs: number; retries: number; total: number; min: number; max: number; sketch: Map<number, number> }
      >();
      for (const row of rows) {
        const day = Math.floor((Number(row.t) * 1000) / DAY_MS) * DAY_MS;
        if (day + DAY_MS > completed) continue;
        const key = `${String(row.metric)}/${day}/${Number(row.has_failures)}`;
        const cell = out.get(key) ?? {
          runs: 0,
          retries: 0,
          total: 0,
          min: Infinity,
          max: -Infinity,
          sketch: new Map(),
        };
        cell.runs += Number(row.runs);
        cell.retries += Number(row.retries);
        cell.total += Number(row.total);
        cell.min = Math.min(cell.min, Number(row.minimum));
        cell.max = Math.max(cell.max, Number(row.maximum));
        (row.sketch_keys as unknown[]).forEach((k, i) =>
          cell.sketch.set(Number(k), (cell.sketch.get(Number(k)) ?? 0) + Number((row.sketch_counts as unknown[])[i])),
        );
        out.set(key, cell);
      }
      expect(span).toBeGreaterThan(0);
      return new Map(
        [...out].map(([key, cell]) => [
          key,
          { ...cell, total: Number(cell.total.toPrecision(10)), sketch: [...cell.sketch].sort((a, b) => a[0] - b[0]) },
        ]),
      );
    };
    const fromHours = summed(hourly, HOUR_MS);
    expect(fromHours.size).toBeGreaterThan(0);
    expect(summed(daily, DAY_MS)).toEqual(fromHours);
  };

  beforeAll(async () => {
    store = open();
    await store.migrate();
    for (let i = 0; i < data.length; i += 10_000) await store.insert(data.slice(i, i + 10_000));
  }, 120_000);
  afterAll(async () => store?.close());

  it('keeps daily rows equal to the sums of their hours', async () => {
    expect((await store.rollups.watermarks()).completed).toBe(Math.floor(now / HOUR_MS) * HOUR_MS);
    await dailyMatchesHours();
  });

  it.each(windows)('agrees with the exact path, with unrolled hours: %o', async (params) => {
    const { exact } = await agree(params);
    expect(exact.series.flatMap((entry) => entry.data).some((point) => point.responseTime_p99 !== null)).toBe(true);
  });

  it('reads whole days from the daily rows', async () => {
    expect((await agree(windows[1]!)).usedDaily).toBe(true);
  });

  it('lands a late result in its day, once', async () => {
    const hour = Math.floor((START + 3 * DAY_MS + 5 * HOUR_MS) / HOUR_MS) * HOUR_MS;
    const [late] = results(accountId, checkId, 1, hour + 1234, 1).map((result) => ({
      ...result,
      id: randomUUID(),
      responseTime: 99_999,
    }));
    await store.insert([late!]);
    await store.insert([late!]);
    await dailyMatchesHours();
    const params = { from: at(START + DAY_MS), to: at(START + 8 * DAY_MS) };
    const { exact } = await agree(params);
    expect(exact.series[0]!.data[0]!.responseTime_max).toBe(99_999);
    expect(exact.series[0]!.data[0]!.totalRequests).toBe(
      data.filter((r) => Date.parse(r.startedAt) >= START + DAY_MS && Date.parse(r.startedAt) < START + 8 * DAY_MS)
        .length + 1,
    );
  });

  it('never counts a redelivered result twice', async () => {
    await store.insert(data.slice(0, 500));
    await store.insert([data[100]!, data[100]!, data[20_000]!]);
    await dailyMatchesHours();
    await agree(windows[0]!);
  });

  it('after a rewind, answers from hours and raw rows, then rolls the days again', async () => {
    const checks = Array.from({ length: 10 }, () => randomUUID());
    // This check too, so its stored rollups are stale until the roll, and a reader that read the
    // watermark before the rewind must notice (its cached watermark is now too far on).
    const shared = createAnalyticsReader(store, { rollups: true, sketchAbove: 0 });
    const request = {
      ...parseAnalyticsParams({ metrics: METRICS, ...windows[1] }, { checkType: 'API', now: new Date(NOW) }),
      accountId,
      checkId,
      checkType: 'API' as const,
    };
    await shared.read(request);
    const backfill = [...checks, checkId].flatMap((check) => results(accountId, check, 240, START, 10 * DAY_MS));
    await store.insert(backfill);
    const afterRewind = await ask(windows[1]!, { rollups: false });
    expect(differences(await shared.read(request), afterRewind)).toEqual([]);
    // More late (check, hour) cells than an insert re-rolls: the watermark goes back to START.
    expect((await store.rollups.watermarks()).completed).toBe(Math.floor(START / HOUR_MS) * HOUR_MS);
    for (const params of windows.slice(0, 3)) {
      await agree(params);
      await agree(params, checks[4]!);
    }
    now = NOW;
    expect((await store.rollups.advance()).completed).toBe(Math.floor(NOW / HOUR_MS) * HOUR_MS);
    await dailyMatchesHours();
    for (const params of windows) await agree(params);
    expect((await agree(windows[1]!, checks[4]!)).usedDaily).toBe(true);
  });

  it('rebuilds the daily rows with the hourly ones', async () => {
    await store.rollups.rebuild();
    await dailyMatchesHours();
    await agree(windows[0]!);
  });

  it('keeps the rollups through clustering (DuckDB sorts them by check)', async () => {
    if (store.cluster === undefined) return;
    const before = await ask(windows[1]!, { rollups: true, sketchAbove: 0 });
    await store.cluster();
    await dailyMatchesHours();
    // The same rows, summed in another order: equal up to rounding.
    expect(differences(await ask(windows[1]!, { rollups: true, sketchAbove: 0 }), before)).toEqual([]);
    for (const params of windows) await agree(params);
  });

  it('by default, reads a busy check without location from the rollups, and by location exactly', async () => {
    const params = windows[1]!;
    const exact = await ask(params, { rollups: false });
    const reader = { busyRuns: 1_000 };
    // The first answer teaches the reader the check's size; the second takes the rollups.
    await ask(params, reader);
    sqls.length = 0;
    expect(differences(await ask(params, reader), exact)).toEqual([]);
    // A reader is per process: the one made above learned nothing for this one, so reuse one.
    const shared = createAnalyticsReader(
      { ...store, query: (sql) => (sqls.push(sql), store.query(sql)) } as AnalyticsStore,
      reader,
    );
    const request = (extra: Record<string, string>) => ({
      ...parseAnalyticsParams({ metrics: METRICS, ...params, ...extra }, { checkType: 'API', now: new Date(NOW) }),
      accountId,
      checkId,
      checkType: 'API' as const,
    });
    await shared.read(request({}));
    sqls.length = 0;
    expect(differences(await shared.read(request({})), exact)).toEqual([]);
    expect(sqls.some((sql) => sql.includes(DAILY_TABLE))).toBe(true);
    sqls.length = 0;
    await shared.read(request({ groupBy: 'runLocation' }));
    expect(sqls.some((sql) => sql.includes('check_rollups'))).toBe(false);
  });
});
