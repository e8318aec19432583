import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import type { CheckResultInput } from '#domain';
import { createDuckDbAnalyticsStore } from '../duckdb.ts';
import { sampleCheckResult } from '../fixtures.ts';
import type { AnalyticsStore } from '../port.ts';
import { parseAnalyticsParams, type RawParams } from './params.ts';
import { createAnalyticsReader } from './reader.ts';

// Hand-computed answers on the embedded engine; the cross-engine suite is test/analytics.
const accountId = randomUUID();
const checkId = randomUUID();
const now = new Date('2024-01-02T00:00:00Z');
let store: AnalyticsStore;

const run = (minute: number, overrides: Partial<CheckResultInput>) =>
  sampleCheckResult({
    accountId,
    checkId,
    checkType: 'BROWSER',
    startedAt: new Date(Date.UTC(2024, 0, 1, 22, minute)).toISOString(),
    ...overrides,
  });

beforeAll(async () => {
  store = createDuckDbAnalyticsStore({ path: ':memory:', log: createLogger({ level: 'silent' }) });
  await store.migrate();
  await store.insert([
    run(0, { responseTime: 10, runLocation: 'b', pages: [{ index: 0, url: 'https://old', LCP: 100 }] }),
    run(10, {
      responseTime: 20,
      runLocation: 'a',
      hasFailures: true,
      attempts: 3,
      pages: [
        { index: 0, url: 'https://new', LCP: 300 },
        { index: 1, url: 'https://two', LCP: 1000, CLS: 0.5 },
      ],
    }),
    run(20, { responseTime: 30, runLocation: 'a', pages: [] }),
    run(70, { responseTime: 40, runLocation: 'b', attempts: 2 }),
  ]);
});
afterAll(async () => store.close());

async function read(params: RawParams) {
  const request = parseAnalyticsParams(
    { from: '2024-01-01T22:00:00Z', to: '2024-01-02T00:00:00Z', ...params },
    { checkType: 'BROWSER', now },
  );
  return createAnalyticsReader(store).read({ ...request, accountId, checkId, checkType: 'BROWSER' });
}

describe('analytics reader (DuckDB)', () => {
  it('aggregates runs: mean, interpolated percentiles, population stddev, availability, retries', async () => {
    const answer = await read({
      metrics:
        'responseTime_avg,responseTime_p90,responseTime_median,responseTime_stddev,responseTime_sum,availability,retries',
    });
    expect(answer.series).toHaveLength(1);
    const point = answer.series[0]!.data[0]!;
    expect(point).toMatchObject({
      responseTime_avg: 25,
      responseTime_median: 25,
      responseTime_sum: 100,
      availability: 75,
      retries: 3,
    });
    expect(point.responseTime_p90).toBeCloseTo(37, 9); // h = 3 × 0.9 = 2.7 → 30 + 0.7 × 10
    expect(point.responseTime_stddev).toBeCloseTo(Math.sqrt(125), 9);
    expect(answer.metadata.availability).toEqual({
      unit: 'percentage',
      label: 'Availability (passing runs / runs)',
      aggregation: 'ratio',
    });
  });

  it('counts runs: the catalogue volume metrics and the error rate, null in an empty bucket', async () => {
    const answer = await read({ metrics: 'totalRequests,successfulRequests,failedRequests,errorRate,availability' });
    expect(answer.series[0]!.data[0]).toEqual({
      totalRequests: 4,
      successfulRequests: 3,
      failedRequests: 1,
      errorRate: 25,
      availability: 75,
    });
    expect(answer.metadata.errorRate).toEqual({
      unit: 'percentage',
      label: 'Error rate (failing runs / runs)',
      aggregation: 'ratio',
    });
    const buckets = await read({ metrics: 'totalRequests,failedRequests', aggregationInterval: '30' });
    expect(buckets.series[0]!.data.map((point) => [point.totalRequests, point.failedRequests])).toEqual([
      [3, 1],
      [null, null],
      [1, 0],
      [null, null],
    ]);
    // The same from the exact path: rollups and raw rows agree on counts.
    const request = parseAnalyticsParams(
      {
        from: '2024-01-01T22:00:00Z',
        to: '2024-01-02T00:00:00Z',
        metrics: 'totalRequests,failedRequests',
        aggregationInterval: '30',
      },
      { checkType: 'BROWSER', now },
    );
    const rolled = await createAnalyticsReader(store, { rollups: true }).read({
      ...request,
      accountId,
      checkId,
      checkType: 'BROWSER',
    });
    expect(rolled.series).toEqual(buckets.series);
  });

  it('aggregates page metrics over every page of every run when not grouped by page', async () => {
    const answer = await read({ metrics: 'LCP_avg,LCP_max,CLS_avg,availability' });
    expect(answer.series[0]!.data[0]).toEqual({ LCP_avg: 1400 / 3, LCP_max: 1000, CLS_avg: 0.5, availability: 75 });
  });

  it('groups by page index with the latest URL, run metrics over the runs that loaded the page', async () => {
    const answer = await read({ metrics: 'LCP_min,responseTime_avg,availability', groupBy: 'pageIndex' });
    expect(answer.series).toEqual([
      { pageIndex: 0, pageUrl: 'https://new', data: [{ LCP_min: 100, responseTime_avg: 15, availability: 50 }] },
      { pageIndex: 1, pageUrl: 'https://two', data: [{ LCP_min: 1000, responseTime_avg: 20, availability: 0 }] },
    ]);
  });

  it('fills every bucket of an interval, oldest first, empty ones with nulls', async () => {
    const answer = await read({
      metrics: 'responseTime_max,availability',
      aggregationInterval: '30',
      groupBy: 'runLocation',
      limit: '1',
      page: '2',
    });
    expect(answer.series).toEqual([
      {
        runLocation: 'b',
        data: [
          { timestamp: '2024-01-01T22:00:00.000Z', responseTime_max: 10, availability: 100 },
          { timestamp: '2024-01-01T22:30:00.000Z', responseTime_max: null, availability: null },
          { timestamp: '2024-01-01T23:00:00.000Z', responseTime_max: 40, availability: 100 },
          { timestamp: '2024-01-01T23:30:00.000Z', responseTime_max: null, availability: null },
        ],
      },
    ]);
    expect(answer.pagination).toEqual({ page: 2, limit: 1 });
  });

  it('lists raw runs newest first; page metrics give a row per page', async () => {
    const runs = await read({ metrics: 'responseTime', limit: '2' });
    expect(runs.series[0]!.data.map((point) => point.responseTime)).toEqual([40, 30]);
    expect(Object.keys(runs.series[0]!.data[0]!)).toEqual(['startedAt', 'resultId', 'runLocation', 'responseTime']);
    const pages = await read({ metrics: 'LCP', limit: '10' });
    expect(pages.series[0]!.data.map((point) => [point.pageIndex, point.LCP])).toEqual([
      [0, 300],
      [1, 1000],
      [0, 100],
    ]);
  });
});

/** Reads as read() does, with the SQL the reader sent. */
async function readRecorded(params: RawParams) {
  const request = parseAnalyticsParams(params, { checkType: 'BROWSER', now });
  const sqls: string[] = [];
  const recorder: AnalyticsStore = { ...store, query: async (sql) => (sqls.push(sql), store.query(sql)) };
  const answer = await createAnalyticsReader(recorder).read({ ...request, accountId, checkId, checkType: 'BROWSER' });
  return { answer, sqls };
}

describe('analytics SQL on DuckDB', () => {
  it('sorts a value once for all its percentiles in a one-cell answer', async () => {
    const { sqls } = await readRecorded({
      from: '2024-01-01T22:00:00Z',
      to: '2024-01-02T00:00:00Z',
      metrics: 'responseTime_p50,responseTime_p95,responseTime_p99',
    });
    const plan = await store.query<Record<string, string>>(`EXPLAIN ${sqls[0]!}`);
    const text = plan.map((row) => Object.values(row).join('\n')).join('\n');
    expect(text).toContain('UNGROUPED_AGGREGATE');
    expect(text.match(/quantile_cont\(/g)).toHaveLength(1);
  });

  it('has no rows for a window with no runs, as a grouped query has, and answers one cell of nulls', async () => {
    const { answer, sqls } = await readRecorded({
      from: '2023-12-01T00:00:00Z',
      to: '2023-12-01T01:00:00Z',
      metrics: 'responseTime_avg,responseTime_p95,availability,totalRequests',
    });
    expect(await store.query(sqls[0]!)).toEqual([]);
    expect(answer.series).toEqual([
      { data: [{ availability: null, responseTime_avg: null, responseTime_p95: null, totalRequests: null }] },
    ]);
  });
});
