import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { services, uniqueSuffix } from '#test-support';
import type { AnalyticsStore } from '../port.ts';
import { differences, results, rollupEngines } from '../rollup/rollup-fixtures.ts';
import { HOUR_MS } from '../rollup/sql.ts';
import { parseAnalyticsParams } from './params.ts';
import { createAnalyticsReader } from './reader.ts';

/**
 * A busy check read by day a few hours into a UTC day: that day's bucket holds too few runs for
 * the sketch, and only its percentiles come from the exact SQL (small-cells.ts); the other days
 * still come from the sketch. Before, the one small bucket sent the whole answer to the exact path.
 */
const log = createLogger({ level: 'silent' });
const database = `vigil_test_small_cells_${uniqueSuffix()}`;
const dir = mkdtempSync(join(tmpdir(), 'vigil-small-cells-'));
const DAY = 24 * HOUR_MS;
const TODAY = Date.parse('2025-02-20T00:00:00Z');
const NOW = TODAY + 3 * HOUR_MS + 20 * 60_000;
const DAYS = 12;
const engines = rollupEngines({ dir, file: 'small.duckdb', database, log, clock: () => NOW });

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await fetch(services().CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${database}` }).catch(
    () => undefined,
  );
});

describe.each(engines)('small cells on $name', ({ open }) => {
  let store: AnalyticsStore;
  const accountId = randomUUID();
  const checkId = randomUUID();

  beforeAll(async () => {
    store = open();
    await store.migrate();
    // 3,000 runs a day for DAYS days, then 400 in the three hours of today so far.
    const history = results(accountId, checkId, 3_000 * DAYS, TODAY - DAYS * DAY, DAYS * DAY);
    const today = results(accountId, checkId, 400, TODAY, NOW - TODAY - 60_000).map((result) => ({
      ...result,
      id: randomUUID(),
    }));
    for (let i = 0; i < history.length; i += 10_000) await store.insert(history.slice(i, i + 10_000));
    await store.insert(today);
  }, 120_000);
  afterAll(async () => store?.close());

  it('takes only the small bucket from the exact SQL, the rest from the sketch', async () => {
    const request = parseAnalyticsParams(
      {
        metrics: 'responseTime_p95,responseTime_p50,responseTime_avg,dns_p99',
        from: String((TODAY - DAYS * DAY) / 1000),
        to: String(NOW / 1000),
        aggregationInterval: '1440',
      },
      { checkType: 'API', now: new Date(NOW) },
    );
    const read = (rollups: boolean) =>
      createAnalyticsReader(store, { rollups }).read({ ...request, accountId, checkId, checkType: 'API' });
    const exact = await read(false);
    const rolled = await read(true);
    expect(differences(rolled, exact)).toEqual([]);
    const days = rolled.series[0]!.data;
    const exactDays = exact.series[0]!.data;
    expect(days).toHaveLength(DAYS + 1);
    // Today's bucket: exact to the last digit.
    expect(days.at(-1)!.responseTime_p95).toBe(exactDays.at(-1)!.responseTime_p95);
    expect(days.at(-1)!.dns_p99).toBe(exactDays.at(-1)!.dns_p99);
    expect(days.at(-1)!.responseTime_p95).not.toBeNull();
    // The full days: from the sketch, which differs from the exact value somewhere (within its bound).
    const sketched = days.slice(0, -1).filter((day, i) => day.responseTime_p95 !== exactDays[i]!.responseTime_p95);
    expect(sketched.length).toBeGreaterThan(0);
  });
});
