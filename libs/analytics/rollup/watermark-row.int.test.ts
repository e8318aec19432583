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
import { DAILY_TABLE, DAY_MS, NO_LOCATION_TABLE } from './daily.ts';
import { differences, forgetMigration, results, ROLLUP_METRICS, rollupEngines } from './rollup-fixtures.ts';
import { HOUR_MS, ROLLUP_TABLE, WATERMARK_TABLE } from './sql.ts';
import { WATERMARK_ROW } from './watermark-row.ts';

/**
 * The completed watermark as a row in each rollup table (ClickHouse only): every mark writes it,
 * a rollup read takes the watermark from it rather than from rollup_watermarks, each mark merges
 * its copies into one part, a reader finds a
 * rewind through it, one that finds none goes to the raw rows, and migration 7 writes it from the
 * mark already made (again, the same row, after a stop before recording it).
 */
const log = createLogger({ level: 'silent' });
const database = `vigil_test_wmrow_${uniqueSuffix()}`;
const dir = mkdtempSync(join(tmpdir(), 'vigil-wmrow-'));
const NOW = Date.parse('2024-03-01T00:30:00Z');
const START = NOW - 6 * DAY_MS;
const MINUTE = 60_000;
let now = NOW;
const engines = rollupEngines({ dir, file: 'unused.duckdb', database, log, clock: () => now }).filter(
  (engine) => engine.name !== 'duckdb',
);
const TABLES = [ROLLUP_TABLE, NO_LOCATION_TABLE, DAILY_TABLE];

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await fetch(services().CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${database}` }).catch(
    () => undefined,
  );
});

const WINDOW = {
  metrics: [...ROLLUP_METRICS, 'totalRequests'].join(','),
  from: String((START + DAY_MS + 5 * HOUR_MS + 17 * MINUTE) / 1000),
  to: String((NOW - 2 * HOUR_MS - 7 * MINUTE) / 1000),
};

describe.each(engines)('the watermark row on $name', ({ open, write }) => {
  let store: AnalyticsStore;
  const accountId = randomUUID();
  const checkId = randomUUID();
  const sqls: string[] = [];

  const ask = (rollups: boolean) => {
    const spy: AnalyticsStore = { ...store, query: (sql) => (sqls.push(sql), store.query(sql)) };
    const request = parseAnalyticsParams(WINDOW, { checkType: 'API', now: new Date(NOW) });
    return createAnalyticsReader(spy, { rollups, sketchAbove: 0 }).read({
      ...request,
      accountId,
      checkId,
      checkType: 'API',
    });
  };
  /** Agrees with the exact path; returns how many rollup statements took the watermark from the row. */
  const agreeReadingRows = async () => {
    const exact = await ask(false);
    sqls.length = 0;
    expect(differences(await ask(true), exact)).toEqual([]);
    expect(sqls.some((sql) => sql.includes(WATERMARK_TABLE))).toBe(false);
    return sqls.filter((sql) => sql.includes(WATERMARK_ROW.metric)).length;
  };
  /** The row each table holds, as FINAL keeps it: [watermark, rows before the merge]. */
  const rows = async () =>
    Promise.all(
      TABLES.map(async (table) => {
        const [row] = await store.query<{ v: number; n: number }>(
          `SELECT max(total) AS v, count() AS n FROM ${table} FINAL WHERE account_id = '${WATERMARK_ROW.id}' AND metric = '${WATERMARK_ROW.metric}'`,
        );
        return [Number(row!.v), Number(row!.n)];
      }),
    );

  beforeAll(async () => {
    store = open();
    await store.migrate();
    await store.insert(results(accountId, checkId, 6_000, START, 6 * DAY_MS));
  }, 120_000);
  afterAll(async () => store?.close());

  it('is written by every mark, and a rollup read takes the watermark from it', async () => {
    const { completed } = await store.rollups.watermarks();
    expect(completed).toBe(Math.floor(NOW / HOUR_MS) * HOUR_MS);
    expect(await rows()).toEqual(TABLES.map(() => [completed, 1]));
    // One rollup statement: the row said the watermark the reader assumed, so no second try.
    expect(await agreeReadingRows()).toBe(1);
  });

  it('shows a rewind to a reader, and the roll after it', async () => {
    const others = Array.from({ length: 15 }, () => randomUUID());
    // More late (check, hour) cells than an insert re-rolls: the watermark goes back.
    await store.insert([...others, checkId].flatMap((check) => results(accountId, check, 150, START, 6 * DAY_MS)));
    const rewound = (await store.rollups.watermarks()).completed;
    expect(rewound).toBeLessThanOrEqual(START);
    expect((await rows()).map(([v]) => v)).toEqual(TABLES.map(() => rewound));
    now = NOW + 10 * MINUTE;
    const { completed } = await store.rollups.advance();
    expect((await rows()).map(([v]) => v)).toEqual(TABLES.map(() => completed));
    // Each mark merges the row's copies: one part per table, not one per mark.
    const parts = await store.query<{ n: number }>(
      `SELECT count() AS n FROM system.parts WHERE database = currentDatabase() AND partition = '210001' AND active`,
    );
    expect(Number(parts[0]!.n)).toBe(TABLES.length);
    expect(await agreeReadingRows()).toBe(1);
  });

  it('sends readers to the raw rows while a table has none, and migration 7 writes it again', async () => {
    for (const table of TABLES) await write(store, `ALTER TABLE ${table} DROP PARTITION 210001`);
    expect(await rows()).toEqual(TABLES.map(() => [0, 0]));
    // No row: the rollup statement is taken as stale, tried once more, then the exact path answers.
    expect(await agreeReadingRows()).toBe(2);
    const { completed } = await store.rollups.watermarks();
    await forgetMigration(store, write, 7);
    await store.migrate();
    expect((await rows()).map(([v]) => v)).toEqual(TABLES.map(() => completed));
    expect(await agreeReadingRows()).toBe(1);
    // Stopped after writing, before recording: the next start writes the same row, which collapses.
    await forgetMigration(store, write, 7);
    await store.migrate();
    expect(await rows()).toEqual(TABLES.map(() => [completed, 1]));
    expect(await agreeReadingRows()).toBe(1);
  });
});
