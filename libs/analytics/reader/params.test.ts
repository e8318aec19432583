import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import type { ResultCheckType } from '#domain';
import { parseAnalyticsParams, type RawParams } from './params.ts';

const now = new Date('2024-03-14T15:09:26.535Z');
const parse = (params: RawParams, checkType: ResultCheckType = 'API') =>
  parseAnalyticsParams(params, { checkType, now });

/** Expects a 400 whose message starts with the parameter's name and matches `detail`. */
function rejects(params: RawParams, parameter: string, detail: RegExp, checkType: ResultCheckType = 'API') {
  let caught: unknown;
  try {
    parse(params, checkType);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ValidationError);
  const message = (caught as ValidationError).message;
  expect(message.startsWith(`${parameter}: `), message).toBe(true);
  expect(message).toMatch(detail);
}

describe('parseAnalyticsParams', () => {
  it('applies the defaults: last 24 hours, no interval, no grouping, limit 10, page 1', () => {
    const request = parse({ metrics: 'responseTime_avg' });
    expect(request.window).toEqual({ from: new Date(now.getTime() - 86_400_000), to: now });
    expect(request).toMatchObject({
      intervalMinutes: null,
      groupBy: null,
      statuses: [],
      limit: 10,
      page: 1,
      raw: false,
      relativeWindow: 'last24Hours',
    });
  });

  it('metrics: required', () => {
    rejects({}, 'metrics', /required/);
    rejects({ metrics: ' , ' }, 'metrics', /required/);
  });

  it('metrics: takes commas, repeats and metrics[], in order, without repeats', () => {
    const request = parse({
      metrics: ['responseTime_avg,dns_p95', 'availability'],
      'metrics[]': ['retries', 'responseTime_avg'],
    });
    expect(request.metrics.map((metric) => metric.name)).toEqual([
      'responseTime_avg',
      'dns_p95',
      'availability',
      'retries',
    ]);
  });

  it('metrics: a metric the type lacks is refused with the allowed ones listed', () => {
    rejects(
      { metrics: 'LCP_avg' },
      'metrics',
      /"LCP_avg" is not a metric of API checks; API checks allow availability, retries, .*responseTime, wait, dns, tcp, firstByte, download.*avg, max, median/,
    );
    rejects({ metrics: 'responseTime_p75' }, 'metrics', /not a metric/);
    rejects(
      { metrics: 'responseTime_avg' },
      'metrics',
      /HEARTBEAT checks allow availability, retries, totalRequests, successfulRequests, failedRequests, errorRate$/,
      'HEARTBEAT',
    );
    rejects({ metrics: 'total_avg' }, 'metrics', /not a metric of BROWSER/, 'BROWSER');
  });

  it('metrics: raw and aggregated cannot be mixed', () => {
    rejects(
      { metrics: 'responseTime,responseTime_avg' },
      'metrics',
      /raw metrics \(responseTime\).*cannot be mixed.*responseTime_avg/,
    );
    expect(parse({ metrics: 'responseTime,wait' }).raw).toBe(true);
  });

  it('from and to: unix seconds or ISO 8601, overriding quickRange', () => {
    const request = parse({
      metrics: 'availability',
      from: '1704067200',
      to: '2024-01-02T00:00:00+01:00',
      quickRange: 'lastMonth',
    });
    expect(request.window).toEqual({ from: new Date('2024-01-01T00:00:00Z'), to: new Date('2024-01-01T23:00:00Z') });
    expect(request.relativeWindow).toBeNull();
    expect(parse({ metrics: 'availability', from: '2024-01-01T00:00:00.250Z' }).window).toEqual({
      from: new Date(1_704_067_200_250),
      to: now,
    });
  });

  it('from: refuses what is not a time, milliseconds, and a from not before to', () => {
    rejects({ metrics: 'availability', from: 'yesterday' }, 'from', /unix seconds .* or ISO 8601/);
    rejects({ metrics: 'availability', from: '1704067200000' }, 'from', /looks like milliseconds/);
    rejects({ metrics: 'availability', from: '2024-01-02', to: '2024-01-01' }, 'from', /must be before to/);
    rejects({ metrics: 'availability', from: '2024-01-01', to: '2024-01-01T00:00:00Z' }, 'from', /must be before to/);
  });

  it('to: needs from, and must be a time', () => {
    rejects({ metrics: 'availability', to: '1704067200' }, 'from', /required when to is given/);
    rejects({ metrics: 'availability', from: '1704067200', to: '2024-13-45T00:00:00Z' }, 'to', /not a valid date/);
  });

  it('quickRange: one of the seven', () => {
    rejects(
      { metrics: 'availability', quickRange: 'last90Days' },
      'quickRange',
      /last24Hours, last7Days, last30Days, thisWeek, thisMonth, lastWeek, lastMonth/,
    );
    expect(parse({ metrics: 'availability', quickRange: 'lastWeek' }).window.from).toEqual(
      new Date('2024-03-04T00:00:00Z'),
    );
  });

  it('aggregationInterval: whole minutes from 1 to 43200, at most 10,000 buckets', () => {
    for (const bad of ['0', '43201', '1.5', 'five', '-5'])
      rejects({ metrics: 'availability', aggregationInterval: bad }, 'aggregationInterval', /1 to 43200/);
    expect(parse({ metrics: 'availability', aggregationInterval: '43200' }).intervalMinutes).toBe(43_200);
    // 30 days in 1-minute buckets is 43,200 buckets.
    rejects(
      { metrics: 'availability', quickRange: 'last30Days', aggregationInterval: '1' },
      'aggregationInterval',
      /more than 10000; use a larger interval, at least 5 minutes/,
    );
    expect(parse({ metrics: 'availability', quickRange: 'last30Days', aggregationInterval: '5' }).intervalMinutes).toBe(
      5,
    );
  });

  it('filterByStatus: success or failure, or heartbeat statuses for heartbeats', () => {
    expect(parse({ metrics: 'availability', filterByStatus: 'success,FAILURE' }).statuses).toEqual([
      'success',
      'failure',
    ]);
    rejects({ metrics: 'availability', filterByStatus: 'LATE' }, 'filterByStatus', /use success, failure/);
    expect(parse({ metrics: 'availability', 'filterByStatus[]': ['late', 'GRACE'] }, 'HEARTBEAT').statuses).toEqual([
      'LATE',
      'GRACE',
    ]);
    rejects(
      { metrics: 'availability', filterByStatus: 'success' },
      'filterByStatus',
      /use RECEIVED, EARLY, LATE, GRACE, FAILING/,
      'HEARTBEAT',
    );
  });

  it('groupBy: by type; heartbeats refuse any value; raw metrics are not grouped', () => {
    expect(parse({ metrics: 'availability', groupBy: 'statusCode' }).groupBy).toBe('statusCode');
    expect(parse({ metrics: 'availability', groupBy: 'pageIndex' }, 'BROWSER').groupBy).toBe('pageIndex');
    rejects({ metrics: 'availability', groupBy: 'pageIndex' }, 'groupBy', /use one of runLocation, statusCode/);
    rejects({ metrics: 'availability', groupBy: 'statusCode' }, 'groupBy', /use one of runLocation$/, 'TCP');
    rejects({ metrics: 'availability', groupBy: 'runLocation' }, 'groupBy', /cannot be grouped/, 'HEARTBEAT');
    rejects({ metrics: 'responseTime', groupBy: 'runLocation' }, 'groupBy', /raw metrics/);
  });

  it('limit: 1 to 100, default 10', () => {
    expect(parse({ metrics: 'availability', limit: '100' }).limit).toBe(100);
    for (const bad of ['0', '101', 'ten', ''])
      rejects({ metrics: 'availability', limit: bad }, 'limit', /1 to 100|empty/);
    rejects({ metrics: 'availability', limit: ['5', '6'] }, 'limit', /given 2 times/);
  });

  it('page: 1 or more, default 1', () => {
    expect(parse({ metrics: 'availability', page: '7' }).page).toBe(7);
    for (const bad of ['0', '-1', '1.0']) rejects({ metrics: 'availability', page: bad }, 'page', /from 1/);
  });

  it('raw metrics take no aggregationInterval', () => {
    rejects({ metrics: 'responseTime', aggregationInterval: '5' }, 'aggregationInterval', /raw metrics/);
  });

  it('marks windows that move with the clock, for the cache', () => {
    expect(parse({ metrics: 'availability', quickRange: 'thisWeek' }).relativeWindow).toBe('thisWeek');
    expect(parse({ metrics: 'availability', from: '1704067200' }).relativeWindow).toBe('1704067200000..now');
  });
});
