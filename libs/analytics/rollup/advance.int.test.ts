import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { services, uniqueSuffix } from '#test-support';
import { rollupEngines } from './rollup-fixtures.ts';
import { HOUR_MS } from './sql.ts';

/**
 * The first roll of a new deployment (the rollup app's advance before any result arrives): it
 * must mark every hour up to now as rolled at once, not walk from 1970 a day at a time
 * (ClickHouse's min() over no rows is 0, which did exactly that: about 20,000 days of statements).
 */
const log = createLogger({ level: 'silent' });
const database = `vigil_test_advance_${uniqueSuffix()}`;
const dir = mkdtempSync(join(tmpdir(), 'vigil-advance-'));
const NOW = Date.parse('2026-11-28T01:10:00Z');
const engines = rollupEngines({ dir, file: 'advance.duckdb', database, log, clock: () => NOW });

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await fetch(services().CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${database}` }).catch(
    () => undefined,
  );
});

describe.each(engines)('the first advance on $name', ({ open }) => {
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
});
