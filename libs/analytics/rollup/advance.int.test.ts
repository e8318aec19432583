import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { services, uniqueSuffix } from '#test-support';
import { results, rollupEngines } from './rollup-fixtures.ts';
import { randomUUID } from 'node:crypto';
import { HOUR_MS, WATERMARK_TABLE } from './sql.ts';

/**
 * The first roll of a new deployment (the rollup app's advance before any result arrives): it
 * must mark every hour up to now as rolled at once, not walk from 1970 a day at a time
 * (ClickHouse's min() over no rows is 0, which did exactly that: about 20,000 days of statements).
 */
const log = createLogger({ level: 'silent' });
const database = `vigil_test_advance_${uniqueSuffix()}`;
const dir = mkdtempSync(join(tmpdir(), 'vigil-advance-'));
const NOW = Date.parse('2026-11-28T01:10:00Z');
const DAY = 24 * HOUR_MS;
const empty = rollupEngines({ dir, file: 'advance.duckdb', database, log, clock: () => NOW });
const gap = rollupEngines({ dir, file: 'gap.duckdb', database: `${database}_gap`, log, clock: () => NOW });
const engines = empty.map((engine, i) => ({ ...engine, openGap: gap[i]!.open }));

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  for (const name of [database, `${database}_gap`])
    await fetch(services().CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${name}` }).catch(
      () => undefined,
    );
});

describe.each(engines)('the first advance on $name', ({ open, openGap }) => {
  it('rolls an empty store up to the last closed hour in one step', { timeout: 30_000 }, async () => {
    const store = open();
    try {
      await store.migrate();
      const marks = await store.rollups.advance();
      expect(marks.completed).toBe(Math.floor(NOW / HOUR_MS) * HOUR_MS);
      expect(await store.rollups.watermarks()).toEqual(marks);
    } finally {
      await store.close();
    }
  });

  it('rolls data months apart without a step per empty day between', { timeout: 60_000 }, async () => {
    const store = openGap();
    try {
      await store.migrate();
      const accountId = randomUUID();
      const checkId = randomUUID();
      const old = [
        ...results(accountId, checkId, 30, NOW - 300 * DAY, DAY),
        ...results(accountId, checkId, 20, NOW - 120 * DAY, 2 * DAY),
      ];
      await store.insert(old.map((result) => ({ ...result, id: randomUUID() })));
      expect((await store.rollups.watermarks()).completed).toBe(Math.floor(NOW / HOUR_MS) * HOUR_MS);
      const runs = await store.query<{ n: number }>(
        `SELECT sum(runs) AS n FROM ${store.rollups.source} WHERE check_id = '${checkId}' AND metric = ''`,
      );
      expect(Number(runs[0]!.n)).toBe(50);
      // One completed mark per step: the days with data, and the gaps after them in one step each.
      const steps = await store.query<{ n: number }>(
        `SELECT count(*) AS n FROM ${WATERMARK_TABLE} WHERE name = 'completed'`,
      );
      expect(Number(steps[0]!.n)).toBeLessThanOrEqual(8);
    } finally {
      await store.close();
    }
  });
});
