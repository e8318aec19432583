import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAnalyticsReader,
  createCheckWindow,
  createClickHouseAnalyticsStore,
  createStateStoreTokens,
  createDuckDbAnalyticsStore,
  parseAnalyticsParams,
  type AnalyticsReader,
  type AnalyticsStore,
  type CheckWindow,
  type RawParams,
  withChangeTokens,
} from '#analytics';
import { createLogger } from '#core';
import { createSqliteStateStore, type StateStore } from '#statestore';
import { createChdbAnalyticsStore } from '#analytics-chdb';
import type { ResultCheckType } from '#domain';
import { services, uniqueSuffix } from '#test-support';
import { answerDifferences, pointDifferences, seriesDifferences } from './compare.ts';
import { generateDataset, SPAN } from './dataset.ts';
import { everyAggregatedMetric, referenceAggregate, referenceRaw, type ReferenceQuery } from './reference.ts';

/**
 * The analytics contract: the same dataset in DuckDB and ClickHouse, the same queries through
 * the reader, and every answer compared with the reference computed in the test. Percentiles
 * must agree within 1e-6 relative on both engines: the issue allows ClickHouse 1%, but the
 * reader interpolates exactly on ClickHouse too (see reader/build.ts), so the bar is the same.
 * Every question is asked twice more, through a reader with a check window (#analytics
 * createCheckWindow): once to load the check, once answered from memory, which must give the
 * engine's answer.
 */
const log = createLogger({ level: 'silent' });
const dataset = generateDataset();
const TOLERANCE = { duckdb: 1e-6, clickhouse: 1e-6, chdb: 1e-6 };
const database = `vigil_test_analytics_${uniqueSuffix()}`;
const dir = mkdtempSync(join(tmpdir(), 'vigil-analytics-'));
const NOW = new Date('2024-01-20T12:00:00Z');

const engines = [
  { name: 'duckdb' as const, open: () => createDuckDbAnalyticsStore({ path: join(dir, 'analytics.duckdb'), log }) },
  {
    name: 'clickhouse' as const,
    open: () => createClickHouseAnalyticsStore({ url: services().CLICKHOUSE_URL, database, log }),
  },
  // ClickHouse 26.x in process, through the same adapter as the 18.16 server above.
  { name: 'chdb' as const, open: () => createChdbAnalyticsStore({ database, log }) },
];
const TYPES: ResultCheckType[] = ['API', 'URL', 'BROWSER', 'MULTI_STEP', 'PLAYWRIGHT', 'TCP', 'DNS', 'HEARTBEAT'];
const GROUPINGS: [ResultCheckType, 'runLocation' | 'statusCode' | 'pageIndex'][] = [
  ['API', 'runLocation'],
  ['API', 'statusCode'],
  ['URL', 'runLocation'],
  ['URL', 'statusCode'],
  ['BROWSER', 'runLocation'],
  ['BROWSER', 'pageIndex'],
  ['MULTI_STEP', 'runLocation'],
  ['PLAYWRIGHT', 'runLocation'],
  ['TCP', 'runLocation'],
  ['DNS', 'runLocation'],
];
const seconds = (ms: number) => String(ms / 1000);
const iso = (text: string) => Date.parse(text);

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await fetch(services().CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${database}` }).catch(
    () => undefined,
  );
});

describe.each(engines)('analytics reader on $name', ({ name, open }) => {
  const tolerance = TOLERANCE[name];
  let store: AnalyticsStore;
  let reader: AnalyticsReader;
  let state: StateStore;
  let window: CheckWindow;
  let windowed: AnalyticsReader;

  beforeAll(async () => {
    store = open();
    await store.migrate();
    state = createSqliteStateStore({ path: ':memory:', log });
    const tokens = createStateStoreTokens(state);
    // Inserts renew the checks' tokens, as the platform's store does; the window needs them.
    const writer = withChangeTokens(store, tokens);
    for (let i = 0; i < dataset.inserts.length; i += 5000) await writer.insert(dataset.inserts.slice(i, i + 5000));
    reader = createAnalyticsReader(store);
    // The dataset's clock: every window it asks about starts after NOW - 80 days.
    window = createCheckWindow(store, {
      tokens,
      maxRows: 1_000_000,
      spanMs: 80 * 86_400_000,
      maxAgeMs: Number.POSITIVE_INFINITY,
      now: () => NOW.getTime(),
    });
    windowed = createAnalyticsReader(store, { window });
  });
  afterAll(async () => {
    await store.close();
    await state.close();
  });

  async function ask(type: ResultCheckType, params: RawParams, now = NOW, accountId = dataset.accountId) {
    const request = parseAnalyticsParams(params, { checkType: type, now });
    const query = { ...request, accountId, checkId: dataset.checks[type], checkType: type };
    const answer = await reader.read(query);
    await windowed.read(query);
    await window.settled();
    const hits = window.stats().hits;
    const held = await windowed.read(query);
    // Raw runs and pages by index are the engine's alone; every other question has a run plan.
    expect(window.stats().hits - hits).toBe(query.raw || query.groupBy === 'pageIndex' ? 0 : 1);
    expect(answerDifferences(held.series, answer.series, tolerance)).toEqual([]);
    // Percentiles to the last digit: a chart from one path and a table from the other must agree.
    const percentiles = (series: typeof answer.series) =>
      series.flatMap((entry) =>
        entry.data.flatMap((point) => Object.entries(point).filter(([key]) => /_(p\d+|median)$/.test(key))),
      );
    expect(percentiles(held.series)).toEqual(percentiles(answer.series));
    return answer;
  }
  const resultsOf = (type: ResultCheckType) => dataset.results.filter((r) => r.checkId === dataset.checks[type]);

  async function expectMatches(q: ReferenceQuery, params: RawParams = {}, now = NOW) {
    const answer = await ask(
      q.type,
      { metrics: q.metrics.join(','), from: seconds(q.from), to: seconds(q.to), ...params },
      now,
    );
    const expected = referenceAggregate(resultsOf(q.type), q);
    expect(seriesDifferences(answer.series, expected, q.groupBy, tolerance)).toEqual([]);
    return answer;
  }

  it('stores each result once, whatever was redelivered', async () => {
    expect(await store.countResults({ accountId: dataset.accountId })).toBe(dataset.results.length);
  });

  it.each(TYPES)('%s: every metric over the whole span', async (type) => {
    const metrics = everyAggregatedMetric(type);
    const answer = await expectMatches({ type, from: SPAN.from, to: SPAN.to, metrics });
    expect(Object.keys(answer.metadata)).toEqual(metrics);
    expect(answer.series[0]?.data[0]?.availability).not.toBeNull();
  });

  it.each(GROUPINGS)('%s grouped by %s', async (type, groupBy) => {
    const answer = await expectMatches(
      { type, from: SPAN.from, to: SPAN.to, metrics: everyAggregatedMetric(type), groupBy },
      { groupBy },
    );
    expect(answer.series.length).toBeGreaterThan(1);
  });

  it('intervals that cross a day boundary, aligned to the epoch, with empty buckets as nulls', async () => {
    const from = iso('2024-01-09T20:10:00Z');
    const to = iso('2024-01-10T04:30:00Z');
    for (const interval of [60, 7, 30]) {
      const answer = await expectMatches(
        {
          type: 'API',
          from,
          to,
          interval,
          metrics: ['responseTime_p95', 'responseTime_avg', 'availability', 'retries'],
        },
        { aggregationInterval: String(interval) },
      );
      const data = answer.series[0]!.data;
      expect(data[0]!.timestamp).toBe(
        new Date(Math.floor(from / (interval * 60_000)) * interval * 60_000).toISOString(),
      );
      expect(data.some((point) => point.availability === null)).toBe(true);
      expect(data.some((point) => point.timestamp === '2024-01-10T00:00:00.000Z')).toBe(interval !== 7);
    }
    const days = await expectMatches(
      {
        type: 'BROWSER',
        from,
        to: iso('2024-01-13T03:00:00Z'),
        interval: 1440,
        groupBy: 'runLocation',
        metrics: ['LCP_p90', 'CLS_avg', 'responseTime_max', 'availability'],
      },
      { aggregationInterval: '1440', groupBy: 'runLocation' },
    );
    expect(days.series[0]!.data.map((point) => point.timestamp)).toEqual(
      ['2024-01-09', '2024-01-10', '2024-01-11', '2024-01-12', '2024-01-13'].map((d) => `${d}T00:00:00.000Z`),
    );
    await expectMatches(
      {
        type: 'BROWSER',
        from,
        to: iso('2024-01-11T00:00:00Z'),
        interval: 180,
        groupBy: 'pageIndex',
        metrics: ['TTFB_median', 'consoleErrors_sum', 'retries'],
      },
      { aggregationInterval: '180', groupBy: 'pageIndex' },
    );
  });

  // Each case: the injected now, the range, and the window it must resolve to (UTC, weeks from Monday).
  const ranges: [string, string, string, string][] = [
    ['2024-01-03T10:00:00Z', 'thisWeek', '2024-01-01T00:00:00.000Z', '2024-01-03T10:00:00.000Z'],
    ['2024-01-07T23:59:59.999Z', 'thisWeek', '2024-01-01T00:00:00.000Z', '2024-01-07T23:59:59.999Z'],
    ['2024-01-03T10:00:00Z', 'lastWeek', '2023-12-25T00:00:00.000Z', '2024-01-01T00:00:00.000Z'],
    ['2024-01-08T00:00:00Z', 'lastWeek', '2024-01-01T00:00:00.000Z', '2024-01-08T00:00:00.000Z'],
    ['2024-01-15T08:00:00Z', 'lastMonth', '2023-12-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z'],
    ['2024-02-05T00:00:00Z', 'lastMonth', '2024-01-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z'],
    ['2024-02-05T12:00:00Z', 'thisMonth', '2024-02-01T00:00:00.000Z', '2024-02-05T12:00:00.000Z'],
    ['2024-01-01T12:00:00Z', 'last24Hours', '2023-12-31T12:00:00.000Z', '2024-01-01T12:00:00.000Z'],
    ['2024-01-04T00:00:00Z', 'last7Days', '2023-12-28T00:00:00.000Z', '2024-01-04T00:00:00.000Z'],
    ['2024-01-20T12:00:00Z', 'last30Days', '2023-12-21T12:00:00.000Z', '2024-01-20T12:00:00.000Z'],
  ];
  it.each(ranges)('now %s, %s is [%s, %s) in UTC', async (now, quickRange, from, to) => {
    for (const type of ['API', 'HEARTBEAT'] as const) {
      const metrics =
        type === 'API'
          ? ['responseTime_sum', 'responseTime_p99', 'availability', 'retries']
          : ['availability', 'retries'];
      const answer = await ask(type, { metrics: metrics.join(','), quickRange }, new Date(now));
      expect([answer.from, answer.to]).toEqual([from, to]);
      const expected = referenceAggregate(resultsOf(type), { type, from: iso(from), to: iso(to), metrics });
      expect(seriesDifferences(answer.series, expected, undefined, tolerance)).toEqual([]);
    }
  });

  it('the default window is the last 24 hours', async () => {
    const answer = await ask('API', { metrics: 'availability' }, new Date('2024-01-10T00:00:00Z'));
    expect([answer.from, answer.to]).toEqual(['2024-01-09T00:00:00.000Z', '2024-01-10T00:00:00.000Z']);
  });

  it('raw runs, newest first, paged by limit and page', async () => {
    const from = iso('2024-01-05T00:00:00Z');
    const to = iso('2024-01-07T00:00:00Z');
    const pages = [1, 2, 3, 99];
    for (const page of pages) {
      const q: ReferenceQuery = {
        type: 'API',
        from,
        to,
        metrics: ['responseTime', 'wait', 'firstByte'],
        limit: 7,
        page,
      };
      const answer = await ask('API', {
        'metrics[]': ['responseTime', 'wait'],
        metrics: 'firstByte',
        from: seconds(from),
        to: new Date(to).toISOString(),
        limit: '7',
        page: String(page),
      });
      const expected = referenceRaw(resultsOf('API'), q);
      expect(expected.length).toBe(page === 99 ? 0 : 7);
      expect(pointDifferences(answer.series[0]!.data, expected, `page ${page}`, tolerance)).toEqual([]);
    }
    const browser: ReferenceQuery = {
      type: 'BROWSER',
      from,
      to,
      metrics: ['LCP', 'responseTime', 'CLS'],
      limit: 9,
      page: 2,
    };
    const answer = await ask('BROWSER', {
      metrics: ['LCP', 'responseTime,CLS'],
      from: seconds(from),
      to: seconds(to),
      limit: '9',
      page: '2',
    });
    expect(
      pointDifferences(answer.series[0]!.data, referenceRaw(resultsOf('BROWSER'), browser), 'browser', tolerance),
    ).toEqual([]);
  });

  it('pages through the entries of a grouped query', async () => {
    const base: ReferenceQuery = {
      type: 'API',
      from: SPAN.from,
      to: SPAN.to,
      metrics: ['responseTime_avg', 'availability'],
      groupBy: 'runLocation',
      limit: 2,
    };
    const first = await expectMatches({ ...base, page: 1 }, { groupBy: 'runLocation', limit: '2', page: '1' });
    const second = await expectMatches({ ...base, page: 2 }, { groupBy: 'runLocation', limit: '2', page: '2' });
    expect(first.series.length + second.series.length).toBe(3);
    expect(first.pagination).toEqual({ page: 1, limit: 2 });
  });

  it('filters by status, including heartbeat statuses', async () => {
    const window = { from: SPAN.from, to: SPAN.to };
    for (const statuses of [['success'], ['failure'], ['success', 'failure']]) {
      const answer = await expectMatches(
        { type: 'URL', ...window, statuses, metrics: ['availability', 'responseTime_p90', 'retries'] },
        { filterByStatus: statuses },
      );
      const availability = answer.series[0]!.data[0]!.availability;
      if (statuses.length === 1) expect(availability).toBe(statuses[0] === 'success' ? 100 : 0);
    }
    for (const statuses of [['FAILING', 'LATE'], ['RECEIVED'], ['EARLY', 'GRACE']]) {
      await expectMatches(
        { type: 'HEARTBEAT', ...window, statuses, metrics: ['availability', 'retries'] },
        { 'filterByStatus[]': statuses },
      );
    }
  });

  it('never counts another account’s results, even under the same check id', async () => {
    const decoy = dataset.inserts.filter(
      (r) => r.accountId === dataset.decoyAccountId && r.checkId === dataset.checks.API,
    );
    const answer = await ask(
      'API',
      { metrics: 'retries,responseTime_sum', from: seconds(SPAN.from), to: seconds(SPAN.to) },
      NOW,
      dataset.decoyAccountId,
    );
    const expected = referenceAggregate(decoy, {
      type: 'API',
      from: SPAN.from,
      to: SPAN.to,
      metrics: ['retries', 'responseTime_sum'],
    });
    expect(seriesDifferences(answer.series, expected, undefined, tolerance)).toEqual([]);
  });

  it('answers a window without runs with nulls', async () => {
    const answer = await ask('DNS', {
      metrics: 'availability,retries,total_p95',
      from: '2030-01-01T00:00:00Z',
      to: '2030-01-02T00:00:00Z',
    });
    expect(answer.series).toEqual([{ data: [{ availability: null, retries: null, total_p95: null }] }]);
  });
});
