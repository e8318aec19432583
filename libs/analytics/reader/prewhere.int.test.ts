import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import type { CheckResult } from '#domain';
import { services, uniqueSuffix } from '#test-support';
import { createChdbAnalyticsStore } from '../chdb-engine.ts';
import { createClickHouseAnalyticsStore } from '../clickhouse.ts';
import { sampleCheckResult } from '../fixtures.ts';
import type { AnalyticsStore } from '../port.ts';
import { parseAnalyticsParams } from './params.ts';
import { createAnalyticsReader } from './reader.ts';

// Differential test of the PREWHERE fast path (build.ts, finalPrewhere) against the same SQL
// without it, on unmerged copies of redelivered results, on ClickHouse 18.16 and current (chdb).
const log = createLogger({ level: 'silent' });
const NOW = Date.UTC(2024, 2, 1);
const databases: string[] = [];
afterAll(async () => {
  for (const database of databases)
    await fetch(services().CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${database}` });
});

const SHAPES: Record<string, string>[] = [
  { quickRange: 'last30Days', metrics: 'responseTime_avg,responseTime_p95,availability,retries' },
  {
    quickRange: 'last30Days',
    aggregationInterval: '1440',
    groupBy: 'runLocation',
    metrics: 'responseTime_p99,dns_avg',
  },
  { quickRange: 'last7Days', groupBy: 'statusCode', metrics: 'responseTime_median,responseTime_stddev' },
  { quickRange: 'last30Days', metrics: 'responseTime,dns', limit: '40', page: '3' },
];

/** The same store, with every PREWHERE clause taken out of the SQL it is sent: the slow path. */
const withoutPrewhere = (store: AnalyticsStore): AnalyticsStore => ({
  ...store,
  query: (sql) => store.query(sql.replace(/ PREWHERE .*? WHERE /g, ' WHERE ')),
});

// The stores' clock is the data's: on the wall clock every insert's first roll walked some thousand
// empty days since the data, close to the test's time limit on a loaded machine.
const clock = () => NOW;
const engines: [string, (database: string) => AnalyticsStore][] = [
  [
    'ClickHouse 18.16',
    (database) => createClickHouseAnalyticsStore({ url: services().CLICKHOUSE_URL, database, log, clock }),
  ],
  ['chdb', (database) => createChdbAnalyticsStore({ database, log, clock })],
];

describe.each(engines)('PREWHERE on account and check under FINAL (%s)', (_name, open) => {
  it('answers exactly as without it, with copies of results not merged yet', async () => {
    const database = `vigil_test_${uniqueSuffix()}`;
    databases.push(database);
    const store = open(database);
    await store.migrate();
    const accountId = randomUUID();
    const checks = [randomUUID(), randomUUID(), randomUUID()];
    const results: CheckResult[] = Array.from({ length: 900 }, (_, i) =>
      sampleCheckResult({
        accountId,
        checkId: checks[i % 3]!,
        startedAt: new Date(NOW - 20 * 86_400_000 + i * 1_800_000).toISOString(),
        runLocation: i % 4 === 0 ? 'eu-west-1' : 'us-east-1',
        hasFailures: i % 11 === 0,
        attempts: i % 11 === 0 ? 2 : 1,
        responseTime: ((i * 7919) % 991) + 0.25,
        timings: { dns: (i * 37) % 90 },
      }),
    );
    // Separate inserts are separate parts: copies that only FINAL collapses.
    await store.insert(results);
    await store.insert(results.slice(0, 450));
    await store.insert(results.filter((_, i) => i % 3 === 0));
    const fast = createAnalyticsReader(store);
    const slow = createAnalyticsReader(withoutPrewhere(store));
    let compared = 0;
    for (const checkId of checks)
      for (const shape of SHAPES) {
        const request = {
          ...parseAnalyticsParams(shape, { checkType: 'API', now: new Date(NOW) }),
          accountId,
          checkId,
          checkType: 'API' as const,
        };
        const answer = await fast.read(request);
        expect(answer).toEqual(await slow.read(request));
        compared++;
      }
    expect(compared).toBe(12);
    // And the fast path counts each result once: 300 runs per check in the window.
    const [first] = await store.query<{ n: number }>(
      `SELECT count() AS n FROM ${store.source} PREWHERE check_id = '${checks[0]}'`,
    );
    expect(Number(first?.n)).toBe(300);
    await store.close();
  });
});
