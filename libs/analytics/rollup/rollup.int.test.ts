import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { services, uniqueSuffix } from '#test-support';
import type { AnalyticsStore } from '../port.ts';
import { createAnalyticsReader } from '../reader/reader.ts';
import { parseAnalyticsParams } from '../reader/params.ts';
import { differences, results, ROLLUP_METRICS, rollupEngines } from './rollup-fixtures.ts';
import { HOUR_MS, ROLLUP_TABLE } from './sql.ts';

/**
 * Rollups on every engine: answers through rollups equal the exact path (percentiles within the
 * sketch's 1%), a redelivered result never counts twice, a late result lands in its hour, and a
 * rebuild gives the same rollups again.
 */
const log = createLogger({ level: 'silent' });
const database = `vigil_test_rollups_${uniqueSuffix()}`;
const dir = mkdtempSync(join(tmpdir(), 'vigil-rollups-'));
const DAY = 24 * HOUR_MS;
// The stores' clock: the data's last hour (before NOW) is closed, so it is rolled.
const NOW = Date.parse('2024-03-01T00:30:00Z');
const START = NOW - 10 * DAY;
const RUNS = 30_000;
const engines = rollupEngines({ dir, file: 'rollups.duckdb', database, log, clock: () => NOW });

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await fetch(services().CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${database}` }).catch(
    () => undefined,
  );
});

const METRICS = ROLLUP_METRICS.join(',');

describe.each(engines)('rollups on $name', ({ open }) => {
  let store: AnalyticsStore;
  const accountId = randomUUID();
  const checkId = randomUUID();
  const data = results(accountId, checkId, RUNS, START, 10 * DAY);

  const ask = (params: Record<string, string>, options: Parameters<typeof createAnalyticsReader>[1] = {}) => {
    const request = parseAnalyticsParams({ metrics: METRICS, ...params }, { checkType: 'API', now: new Date(NOW) });
    return createAnalyticsReader(store, { rollups: true, ...options }).read({
      ...request,
      accountId,
      checkId,
      checkType: 'API',
    });
  };
  // Sums come back in whatever order the engine added them: compare to 12 significant digits, sketches by key.
  const dump = async () =>
    (await rawDump()).map((row) => {
      const keys = (row.sketch_keys as number[]).map(Number);
      const counts = (row.sketch_counts as number[]).map(Number);
      const order = keys.map((_, i) => i).sort((a, b) => keys[a]! - keys[b]!);
      return {
        ...row,
        metric: String(row.metric),
        runs: Number(row.runs),
        total: Number(Number(row.total).toPrecision(12)),
        squares: Number(Number(row.squares).toPrecision(12)),
        sketch_keys: order.map((i) => keys[i]),
        sketch_counts: order.map((i) => counts[i]),
      };
    });
  const rawDump = () =>
    store.query<Record<string, unknown>>(
      `SELECT metric, ${store.dialect === 'clickhouse' ? 'toUInt32(hour)' : 'epoch(hour)'} AS h, run_location, has_failures, runs, retries, total, minimum, maximum, squares, sketch_keys, sketch_counts FROM ${store.rollups.source} WHERE check_id = '${checkId}' ORDER BY metric, h, run_location, has_failures`,
    );
  const runsIn = async (hour: number) => {
    const rows = await store.query<{ n: number }>(
      `SELECT sum(runs) AS n FROM ${store.rollups.source} WHERE check_id = '${checkId}' AND metric = '' AND hour = '${new Date(hour).toISOString().slice(0, 19).replace('T', ' ')}'`,
    );
    return Number(rows[0]?.n ?? 0);
  };

  beforeAll(async () => {
    store = open();
    await store.migrate();
    // In time order, as a live ingestor would: each batch's closed hours are rolled as they close.
    for (let i = 0; i < data.length; i += 10_000) await store.insert(data.slice(i, i + 10_000));
  }, 120_000);
  afterAll(async () => store?.close());

  it('rolls every closed hour and records how far', async () => {
    const marks = await store.rollups.watermarks();
    expect(marks.completed).toBe(Math.floor(NOW / HOUR_MS) * HOUR_MS);
    const rows = await dump();
    const total = rows.filter((row) => row.metric === '').reduce((sum, row) => sum + Number(row.runs), 0);
    // The runs of the open hour (NOW's) wait for it to close.
    expect(total).toBe(data.filter((result) => Date.parse(result.startedAt) < marks.completed).length);
    expect(total).toBeGreaterThan(RUNS - 200);
  });

  const windows: Record<string, string>[] = [
    // Window edges inside hours: the partial hours come from the raw rows.
    { from: String((START + 17 * 60_000) / 1000), to: String((NOW - 7 * 60_000) / 1000) },
    {
      from: String((START + 2 * DAY + 5 * 60_000) / 1000),
      to: String((START + 5 * DAY) / 1000),
      aggregationInterval: '1440',
      groupBy: 'runLocation',
    },
    { from: String(START / 1000), to: String(NOW / 1000), aggregationInterval: '120', filterByStatus: 'failure' },
  ];

  it.each(windows)('agrees with the exact path: %o', async (params) => {
    const exact = await ask(params, { rollups: false });
    // Every cell from the sketch, however small, to hold the sketch to its bound.
    const sketched = await ask(params, { sketchAbove: 0 });
    expect(differences(sketched, exact)).toEqual([]);
    // The default: cells of at most SKETCH_ABOVE samples are exact, the rest within the bound.
    expect(differences(await ask(params), exact)).toEqual([]);
    expect(exact.series.flatMap((entry) => entry.data).some((point) => point.responseTime_p99 !== null)).toBe(true);
  });

  it('reads percentiles from the sketch (not silently from the exact path)', async () => {
    const params = { from: String(START / 1000), to: String(NOW / 1000) };
    const exact = await ask(params, { rollups: false });
    const sketched = await ask(params, { sketchAbove: 0 });
    const [e, s] = [exact.series[0]!.data[0]!, sketched.series[0]!.data[0]!];
    expect(['responseTime_p90', 'responseTime_p95', 'responseTime_p99'].some((name) => s[name] !== e[name])).toBe(true);
  });

  it('never counts a redelivered result twice, in the same hour, a closed hour or a later batch', async () => {
    const before = await dump();
    await store.insert(data.slice(0, 500));
    await store.insert([data[100]!, data[100]!, data[20_000]!]);
    expect(await dump()).toEqual(before);
    const answer = await ask({ from: String(START / 1000), to: String(NOW / 1000) });
    expect(answer.series[0]!.data[0]!.responseTime_sum).toBeCloseTo(
      data.reduce((sum, result) => sum + result.responseTime, 0),
      3,
    );
  });

  it('lands a late result in its closed hour, once', async () => {
    const hour = Math.floor((START + 3 * DAY) / HOUR_MS) * HOUR_MS;
    const runsBefore = await runsIn(hour);
    const [late] = results(accountId, checkId, 1, hour + 1234, 1).map((result) => ({
      ...result,
      id: randomUUID(),
      responseTime: 99_999,
    }));
    await store.insert([late!]);
    await store.insert([late!]);
    expect(await runsIn(hour)).toBe(runsBefore + 1);
    const params = { from: String(hour / 1000), to: String((hour + HOUR_MS) / 1000) };
    const answer = await ask(params);
    expect(answer.series[0]!.data[0]!.responseTime_max).toBe(99_999);
    expect(differences(answer, await ask(params, { rollups: false }))).toEqual([]);
  });

  it('takes a backfill too large to re-roll in an insert by rewinding the watermark, then rolls it', async () => {
    const closed = Math.floor(NOW / HOUR_MS) * HOUR_MS;
    const checks = Array.from({ length: 10 }, () => randomUUID());
    const backfill = checks.flatMap((check) => results(accountId, check, 240, START, 10 * DAY));
    await store.insert(backfill);
    // 2,400 late (check, hour) cells: more than an insert re-rolls itself.
    expect((await store.rollups.watermarks()).completed).toBe(Math.floor(START / HOUR_MS) * HOUR_MS);
    const request = parseAnalyticsParams(
      {
        metrics: 'totalRequests,responseTime_avg,responseTime_max',
        from: String(START / 1000),
        to: String(NOW / 1000),
      },
      { checkType: 'API', now: new Date(NOW) },
    );
    const read = (options = {}) =>
      createAnalyticsReader(store, { rollups: true, ...options }).read({
        ...request,
        accountId,
        checkId: checks[3]!,
        checkType: 'API',
      });
    expect(differences(await read(), await read({ rollups: false }))).toEqual([]);
    expect((await read()).series[0]!.data[0]!.totalRequests).toBe(240);
    expect((await store.rollups.advance()).completed).toBe(closed);
    const rows = await store.query<{ n: number }>(
      `SELECT sum(runs) AS n FROM ${store.rollups.source} WHERE metric = '' AND check_id IN (${checks.map((id) => `'${id}'`).join(', ')})`,
    );
    expect(Number(rows[0]!.n)).toBe(backfill.filter((result) => Date.parse(result.startedAt) < closed).length);
    expect(differences(await read(), await read({ rollups: false }))).toEqual([]);
  });

  it('rebuilds from the raw rows, idempotently', async () => {
    const before = await dump();
    await store.rollups.rebuild();
    const once = await dump();
    await store.rollups.rebuild();
    expect(await dump()).toEqual(once);
    expect(once).toEqual(before);
    const marks = await store.rollups.watermarks();
    expect(marks.completed).toBe(Math.floor(NOW / HOUR_MS) * HOUR_MS);
    expect(once.length).toBeGreaterThan(0);
    expect(ROLLUP_TABLE).toBe('check_rollups');
  });
});
