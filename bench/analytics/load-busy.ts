/**
 * Loads one busy check (--rows results over 30 days ending at the last whole hour) into a
 * ClickHouse database that stays (for profiling by hand with system.query_log), rolls it, and
 * prints the database, account and check ids.
 *
 *   npx tsx bench/analytics/load-busy.ts [--rows 1000000] [--database vigil_bench_profile]
 */
import { parseArgs } from 'node:util';
import { createClickHouseAnalyticsStore } from '#analytics';
import { createLogger } from '#core';
import { benchConfig } from '../config.ts';
import { log } from '../support/report.ts';
import { makeResults, randomHex8 } from '../support/results.ts';

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    database: { type: 'string', default: 'vigil_bench_profile' },
  },
});
const ROWS = Number(values.rows);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const endMs = Math.floor(Date.now() / HOUR) * HOUR;
const accountId = crypto.randomUUID();
const checkId = crypto.randomUUID();
const shape = {
  accountId,
  checkIds: [checkId],
  idPrefix: randomHex8(),
  startedMs: (i: number) => endMs - 30 * DAY + Math.floor((i * 30 * DAY) / ROWS),
  seed: 11,
};
const store = createClickHouseAnalyticsStore({
  url: benchConfig.clickhouseUrl,
  database: values.database,
  log: createLogger({ level: 'silent' }),
  requestTimeoutMs: 600_000,
});
await store.migrate();
let started = performance.now();
for (let from = 0; from < ROWS; from += 50_000)
  await store.insert(makeResults(shape, from, Math.min(50_000, ROWS - from)));
log(`loaded ${ROWS} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
started = performance.now();
await store.rollups.advance();
log(`rolled in ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(JSON.stringify({ database: values.database, accountId, checkId, endMs }));
await store.close();
