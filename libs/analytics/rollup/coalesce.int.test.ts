import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import type { CheckResult } from '#domain';
import { services, uniqueSuffix } from '#test-support';
import type { AnalyticsStore } from '../port.ts';
import { createAnalyticsReader } from '../reader/reader.ts';
import { parseAnalyticsParams } from '../reader/params.ts';
import { differences, results, ROLLUP_METRICS, rollupEngines } from './rollup-fixtures.ts';
import { HOUR_MS } from './sql.ts';

/**
 * Backfill batches that arrive together share re-rolls (coalesce.ts). On every engine: each
 * insert, once answered, is in its hour's rollups; redeliveries inside and across the batches
 * of one group count once; the rollups equal a rebuild from the raw rows, and answers the exact path.
 */
const log = createLogger({ level: 'silent' });
const database = `vigil_test_coalesce_${uniqueSuffix()}`;
const dir = mkdtempSync(join(tmpdir(), 'vigil-coalesce-'));
const DAY = 24 * HOUR_MS;
const NOW = Date.parse('2024-05-10T06:20:00Z');
const START = NOW - 3 * DAY;
const engines = rollupEngines({ dir, file: 'coalesce.duckdb', database, log, clock: () => NOW });

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await fetch(services().CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${database}` }).catch(
    () => undefined,
  );
});

const sqlTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

describe.each(engines)('coalesced re-rolls on $name', ({ open }) => {
  let store: AnalyticsStore;
  const accountId = randomUUID();
  const checks = [randomUUID(), randomUUID(), randomUUID()];
  const hourOf = (i: number) => Math.floor((START + 7 * HOUR_MS + i * 5 * HOUR_MS) / HOUR_MS) * HOUR_MS;

  /** Rollup rows of the test's checks, in a stable order with sums rounded for comparison. */
  const dump = async () => {
    const hour = store.dialect === 'clickhouse' ? 'toUInt32(hour)' : 'epoch(hour)';
    const rows = await store.query<Record<string, unknown>>(
      `SELECT check_id, metric, ${hour} AS h, run_location, has_failures, runs, retries, total, minimum, maximum FROM ${store.rollups.source} WHERE check_id IN (${checks.map((id) => `'${id}'`).join(', ')}) ORDER BY check_id, metric, h, run_location, has_failures`,
    );
    return rows.map((row) => ({
      ...row,
      runs: Number(row.runs),
      retries: Number(row.retries),
      total: Number(Number(row.total).toPrecision(12)),
      h: Number(row.h),
    }));
  };
  const runsIn = async (checkId: string, hour: number) => {
    const rows = await store.query<{ n: number }>(
      `SELECT sum(runs) AS n FROM ${store.rollups.source} WHERE check_id = '${checkId}' AND metric = '' AND hour = '${sqlTime(hour)}'`,
    );
    return Number(rows[0]?.n ?? 0);
  };

  beforeAll(async () => {
    store = open();
    await store.migrate();
    // Live history first, so every hour before NOW's is rolled and the batches below are late.
    for (const checkId of checks) await store.insert(results(accountId, checkId, 600, START, 3 * DAY));
    expect((await store.rollups.watermarks()).completed).toBe(Math.floor(NOW / HOUR_MS) * HOUR_MS);
  }, 120_000);
  afterAll(async () => store?.close());

  it('answers each insert only once its rows are in the rollups, and counts every result once', async () => {
    // Eight batches at once: each a (check, hour) of its own, two landing in the same hour, one a
    // redelivery of another's results, one mixing a redelivery with new results.
    const fresh = (checkId: string, hour: number, count: number): CheckResult[] =>
      results(accountId, checkId, count, hour + 60_000, HOUR_MS - 120_000).map((result) => ({
        ...result,
        id: randomUUID(),
      }));
    const batches = [
      { checkId: checks[0]!, hour: hourOf(0), rows: fresh(checks[0]!, hourOf(0), 40) },
      { checkId: checks[1]!, hour: hourOf(0), rows: fresh(checks[1]!, hourOf(0), 25) },
      { checkId: checks[1]!, hour: hourOf(1), rows: fresh(checks[1]!, hourOf(1), 30) },
      { checkId: checks[2]!, hour: hourOf(2), rows: fresh(checks[2]!, hourOf(2), 35) },
      { checkId: checks[0]!, hour: hourOf(3), rows: fresh(checks[0]!, hourOf(3), 20) },
      { checkId: checks[2]!, hour: hourOf(4), rows: fresh(checks[2]!, hourOf(4), 15) },
    ];
    batches.push({ ...batches[0]!, rows: [...batches[0]!.rows] });
    batches.push({ ...batches[3]!, rows: [...batches[3]!.rows.slice(0, 10), ...fresh(checks[2]!, hourOf(2), 5)] });
    const expected = new Map<string, number>();
    const before = new Map<string, number>();
    for (const { checkId, hour } of batches) before.set(`${checkId}/${hour}`, await runsIn(checkId, hour));
    for (const { checkId, hour } of batches) {
      const key = `${checkId}/${hour}`;
      const same = batches.filter((b) => `${b.checkId}/${b.hour}` === key);
      expected.set(key, before.get(key)! + new Set(same.flatMap((b) => b.rows.map((r) => r.id))).size);
    }

    const seen = await Promise.all(
      batches.map(async ({ checkId, hour, rows }) => {
        await store.insert(rows);
        // Read right after this insert's answer: its own rows must already be rolled.
        return { key: `${checkId}/${hour}`, runs: await runsIn(checkId, hour), own: rows.length };
      }),
    );
    for (const { key, runs, own } of seen) expect(runs, key).toBeGreaterThanOrEqual(before.get(key)! + own);
    for (const [key, runs] of expected)
      expect(await runsIn(key.split('/')[0]!, Number(key.split('/')[1])), key).toBe(runs);
    // Re-rolled in the inserts, not left to a rewind.
    expect((await store.rollups.watermarks()).completed).toBe(Math.floor(NOW / HOUR_MS) * HOUR_MS);

    const rolled = await dump();
    await store.rollups.rebuild();
    expect(await dump()).toEqual(rolled);

    for (const checkId of checks) {
      const request = parseAnalyticsParams(
        {
          metrics: ROLLUP_METRICS.join(','),
          from: String(START / 1000),
          to: String(NOW / 1000),
          aggregationInterval: '60',
        },
        { checkType: 'API', now: new Date(NOW) },
      );
      const read = (options: Parameters<typeof createAnalyticsReader>[1]) =>
        createAnalyticsReader(store, options).read({ ...request, accountId, checkId, checkType: 'API' });
      expect(differences(await read({ rollups: true, sketchAbove: 0 }), await read({ rollups: false }))).toEqual([]);
    }
  });
});
