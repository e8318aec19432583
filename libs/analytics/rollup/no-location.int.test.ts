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
import { noLocationSource } from '../reader/rollup-read.ts';
import { DAY_MS, NO_LOCATION_TABLE } from './daily.ts';
import { differences, forgetMigration, results, ROLLUP_METRICS, rollupEngines } from './rollup-fixtures.ts';
import { HOUR_MS } from './sql.ts';

/**
 * Hourly rollups without location (check_rollups_no_location) on every engine: each row equals
 * the sum of its hour's rows over locations, after rolls, a late re-roll, a redelivery, a rewind
 * and a rebuild; the reader takes the part-days at a window's edges from it when the query is not
 * grouped by location, and agrees with the exact path; migration 6 fills it on a database rolled
 * before it existed, and again (the same rows) when a process stopped before recording it; each
 * row carries its account, and another account's rows never reach a read.
 */
const log = createLogger({ level: 'silent' });
const database = `vigil_test_noloc_${uniqueSuffix()}`;
const dir = mkdtempSync(join(tmpdir(), 'vigil-noloc-'));
const NOW = Date.parse('2024-03-01T00:30:00Z');
const START = NOW - 6 * DAY_MS;
const MINUTE = 60_000;
let now = NOW;
const engines = rollupEngines({ dir, file: 'noloc.duckdb', database, log, clock: () => now });

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await fetch(services().CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${database}` }).catch(
    () => undefined,
  );
});

const METRICS = [...ROLLUP_METRICS, 'totalRequests'].join(',');
const at = (ms: number) => String(ms / 1000);
// Part-days at both edges (hourly rows there), whole days between, raw rows at the very ends.
const WINDOW = { from: at(START + DAY_MS + 5 * HOUR_MS + 17 * MINUTE), to: at(NOW - 2 * HOUR_MS - 7 * MINUTE) };

describe.each(engines)('hourly rollups without location on $name', ({ open, write }) => {
  let store: AnalyticsStore;
  const accountId = randomUUID();
  const checkId = randomUUID();
  // Another account's check with the same id: its rows must never reach this account's reads.
  const otherAccount = randomUUID();
  const sqls: string[] = [];

  const ask = (options: { rollups: boolean; sketchAbove?: number }, params: Record<string, string> = WINDOW) => {
    const spy: AnalyticsStore = { ...store, query: (sql) => (sqls.push(sql), store.query(sql)) };
    const request = parseAnalyticsParams({ metrics: METRICS, ...params }, { checkType: 'API', now: new Date(NOW) });
    return createAnalyticsReader(spy, options).read({ ...request, accountId, checkId, checkType: 'API' });
  };
  const agree = async (params: Record<string, string> = WINDOW) => {
    const exact = await ask({ rollups: false }, params);
    sqls.length = 0;
    expect(differences(await ask({ rollups: true, sketchAbove: 0 }, params), exact)).toEqual([]);
    expect(differences(await ask({ rollups: true }, params), exact)).toEqual([]);
    return sqls.some((sql) => sql.includes(NO_LOCATION_TABLE));
  };

  /** Every row without location equals its hour's rows summed over locations, per account and check. */
  const matchesHours = async () => {
    const { completed } = await store.rollups.watermarks();
    const h = store.dialect === 'clickhouse' ? 'toUInt32(hour)' : 'epoch(hour)';
    const account = store.dialect === 'clickhouse' ? 'toString(account_id)' : 'CAST(account_id AS VARCHAR)';
    const select = (source: string) =>
      store.query<Record<string, unknown>>(
        `SELECT ${account} AS a, metric, ${h} AS t, has_failures, runs, retries, total, minimum, maximum, ` +
          `squares, sketch_keys, sketch_counts FROM ${source} WHERE check_id = '${checkId}'`,
      );
    const summed = (rows: Record<string, unknown>[]) => {
      const out = new Map<string, { runs: number; retries: number; total: number; min: number; max: number }>();
      const sketches = new Map<string, Map<number, number>>();
      for (const row of rows) {
        if (Number(row.t) * 1000 + HOUR_MS > completed) continue;
        const key = `${String(row.a)}/${String(row.metric)}/${Number(row.t)}/${Number(row.has_failures)}`;
        const cell = out.get(key) ?? { runs: 0, retries: 0, total: 0, min: Infinity, max: -Infinity };
        cell.runs += Number(row.runs);
        cell.retries += Number(row.retries);
        cell.total += Number(row.total);
        cell.min = Math.min(cell.min, Number(row.minimum));
        cell.max = Math.max(cell.max, Number(row.maximum));
        out.set(key, cell);
        const sketch = sketches.get(key) ?? new Map<number, number>();
        (row.sketch_keys as unknown[]).forEach((k, i) =>
          sketch.set(Number(k), (sketch.get(Number(k)) ?? 0) + Number((row.sketch_counts as unknown[])[i])),
        );
        sketches.set(key, sketch);
      }
      return [...out].map(([key, cell]) => ({
        key,
        ...cell,
        sketch: [...sketches.get(key)!].sort((a, b) => a[0] - b[0]),
      }));
    };
    // Sums of the same numbers in another order: equal up to rounding.
    const rounded = (rows: ReturnType<typeof summed>) =>
      rows
        .map((row) => ({ ...row, total: Number(row.total.toPrecision(9)) }))
        .sort((a, b) => a.key.localeCompare(b.key));
    const fromHours = summed(await select(store.rollups.source));
    expect(fromHours.length).toBeGreaterThan(0);
    expect(new Set(fromHours.map((row) => row.key.split('/')[0]))).toEqual(new Set([accountId, otherAccount]));
    const derived = summed(await select(noLocationSource(store.rollups.source)));
    derived.forEach((row, i) => {
      const want = fromHours.find((other) => other.key === row.key)?.total ?? NaN;
      expect(Math.abs(row.total - want), `${i} ${row.key}`).toBeLessThanOrEqual(1e-9 * Math.abs(want));
    });
    const exactly = (rows: ReturnType<typeof summed>) => rounded(rows).map(({ total: _, ...rest }) => rest);
    expect(exactly(derived)).toEqual(exactly(fromHours));
  };

  beforeAll(async () => {
    store = open();
    await store.migrate();
    await store.insert(results(accountId, checkId, 12_000, START, 6 * DAY_MS));
    // Other numbers for the other account, so a leak would change every sum.
    await store.insert(
      results(otherAccount, checkId, 3_000, START, 6 * DAY_MS).map((r) => ({ ...r, responseTime: 5_000 })),
    );
  }, 120_000);
  afterAll(async () => store?.close());

  it('holds each hour summed over locations, and the reader takes the edges from it', async () => {
    await matchesHours();
    expect(await agree()).toBe(true);
    // Grouped by location, the hourly rows answer: the table without location is not read.
    sqls.length = 0;
    const grouped = { ...WINDOW, groupBy: 'runLocation' };
    const exact = await ask({ rollups: false }, grouped);
    expect(differences(await ask({ rollups: true, sketchAbove: 0 }, grouped), exact)).toEqual([]);
    expect(sqls.some((sql) => sql.includes(NO_LOCATION_TABLE))).toBe(false);
  });

  it('follows a late result and a redelivery, counted once', async () => {
    const [late] = results(accountId, checkId, 1, START + 5 * DAY_MS + 2 * HOUR_MS + 999, 1).map((r) => ({
      ...r,
      id: randomUUID(),
      responseTime: 77_777,
    }));
    await store.insert([late!]);
    await store.insert([late!]);
    await matchesHours();
    const exact = await ask({ rollups: false });
    expect(exact.series[0]!.data[0]!.responseTime_max).toBe(77_777);
    await agree();
  });

  it('follows a rewind and the roll after it, and a rebuild', async () => {
    const checks = Array.from({ length: 15 }, () => randomUUID());
    // More late (check, hour) cells than an insert re-rolls (2,000): the watermark goes back.
    await store.insert([...checks, checkId].flatMap((check) => results(accountId, check, 150, START, 6 * DAY_MS)));
    expect((await store.rollups.watermarks()).completed).toBeLessThanOrEqual(START);
    await agree();
    now = NOW + 10 * MINUTE;
    await store.rollups.advance();
    await matchesHours();
    expect(await agree()).toBe(true);
    await store.rollups.rebuild();
    await matchesHours();
    expect(await agree()).toBe(true);
  });

  it('is filled by migration 6 on a database rolled before it, and again after a stop before recording it', async () => {
    // As a store left it before version 6: hourly and daily rows, no table without location.
    await write(store, `DROP TABLE ${NO_LOCATION_TABLE}`);
    const forget = () => forgetMigration(store, write, 6);
    await forget();
    const versions = async () =>
      (await store.query<{ version: number }>('SELECT DISTINCT version FROM schema_migrations')).map((r) =>
        Number(r.version),
      );
    expect(await versions()).not.toContain(6);
    await store.migrate();
    expect(await versions()).toContain(6);
    await matchesHours();
    expect(await agree()).toBe(true);
    // Stopped after filling, before recording: the next start fills again, and nothing doubles.
    await forget();
    await store.migrate();
    await matchesHours();
    expect(await agree()).toBe(true);
  });
});
