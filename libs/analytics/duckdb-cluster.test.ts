import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import type { CheckResult } from '#domain';
import { createAnalyticsReader, createDuckDbAnalyticsStore, parseAnalyticsParams, sampleCheckResult } from './index.ts';
import type { AnalyticsStore } from './port.ts';

const dir = mkdtempSync(join(tmpdir(), 'vigil-cluster-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const log = createLogger({ level: 'silent' });
const NOW = Date.UTC(2026, 0, 31);
const HOUR = 3_600_000;

/** Runs of several checks interleaved in time order, as the ingestor appends them. */
function interleaved(accountId: string, checks: string[], runs: number): CheckResult[] {
  const out: CheckResult[] = [];
  for (let i = 0; i < runs; i++) {
    out.push(
      sampleCheckResult({
        accountId,
        checkId: checks[i % checks.length]!,
        startedAt: new Date(NOW - 20 * 24 * HOUR + i * 7 * 60_000).toISOString(),
        runLocation: i % 3 === 0 ? 'eu-west-1' : 'us-east-1',
        hasFailures: i % 17 === 0,
        attempts: i % 17 === 0 ? 2 : 1,
        responseTime: ((i * 7919) % 997) + 0.5,
        timings: { dns: (i * 31) % 50, firstByte: (i * 13) % 300 },
      }),
    );
  }
  return out;
}

const SHAPES: Record<string, string>[] = [
  { quickRange: 'last30Days', metrics: 'responseTime_avg,responseTime_p95,availability' },
  {
    quickRange: 'last30Days',
    metrics:
      'responseTime_avg,responseTime_min,responseTime_max,responseTime_median,responseTime_p90,responseTime_p99,responseTime_stddev,dns_avg,firstByte_p95,retries',
  },
  {
    quickRange: 'last7Days',
    aggregationInterval: '1440',
    groupBy: 'runLocation',
    metrics: 'responseTime_p99,availability',
  },
  { quickRange: 'last30Days', metrics: 'responseTime,dns', limit: '50', page: '2' },
];

async function answers(store: AnalyticsStore, accountId: string, checks: string[]): Promise<unknown[]> {
  const reader = createAnalyticsReader(store);
  const out: unknown[] = [];
  for (const checkId of checks)
    for (const shape of SHAPES) {
      const request = parseAnalyticsParams(shape, { checkType: 'API', now: new Date(NOW) });
      out.push(await reader.read({ ...request, accountId, checkId, checkType: 'API' }));
    }
  return out;
}

describe('duckdb clustering (check_results sorted by account, check, start)', () => {
  it('gives the same answers, sorts the rows, and keeps exactly-once and late results', async () => {
    const path = join(dir, 'cluster.duckdb');
    const accountId = randomUUID();
    const checks = Array.from({ length: 5 }, () => randomUUID());
    const results = interleaved(accountId, checks, 2_000);
    const store = createDuckDbAnalyticsStore({ path, log });
    await store.migrate();
    await store.insert(results.slice(0, 1_200));
    await store.insert(results.slice(1_200));

    // Differential: the layout changes, the answers must not.
    const before = await answers(store, accountId, checks);
    expect(await store.cluster!()).toEqual({ rows: 2_000 });
    expect(await answers(store, accountId, checks)).toEqual(before);

    // Physically in check order now (rowid is the storage order), where before it was interleaved.
    const order = await store.query<{ c: string }>(
      'SELECT CAST(check_id AS VARCHAR) AS c FROM check_results ORDER BY rowid',
    );
    const seen = order.map((row) => row.c);
    expect(seen).toEqual([...seen].sort());

    // A redelivered batch still counts once (the primary key came along), a late result lands.
    const late = sampleCheckResult({
      accountId,
      checkId: checks[0],
      startedAt: new Date(NOW - 10 * 24 * HOUR).toISOString(),
    });
    await store.insert([...results.slice(0, 300), late]);
    expect(await store.countResults({ accountId })).toBe(2_001);
    await store.close();

    // And across a reopen: the key is in the file, not just in this process.
    const reopened = createDuckDbAnalyticsStore({ path, log });
    await reopened.migrate();
    await reopened.insert(results.slice(500, 600));
    expect(await reopened.countResults({ accountId })).toBe(2_001);
    expect(await reopened.cluster!()).toEqual({ rows: 2_001 });
    expect(await reopened.countResults({ accountId, checkId: checks[0] })).toBe(401);
    await reopened.close();
  });

  it('leaves the table as it was when the rewrite fails', async () => {
    const store = createDuckDbAnalyticsStore({ path: ':memory:', log });
    await store.migrate();
    const accountId = randomUUID();
    await store.insert(interleaved(accountId, [randomUUID(), randomUUID()], 100));
    // A view holds the copy's name: DROP TABLE IF EXISTS refuses it, half-way into the transaction.
    await store.query('CREATE VIEW check_results_clustered AS SELECT 1 AS x');
    await expect(store.cluster!()).rejects.toThrow();
    expect(await store.countResults({ accountId })).toBe(100);
    await store.insert(interleaved(accountId, [randomUUID()], 10));
    expect(await store.countResults({ accountId })).toBe(110);
    await store.close();
  });
});
