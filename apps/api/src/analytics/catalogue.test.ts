import { describe, expect, it } from 'vitest';
import { parseMetrics } from '#analytics';
import { ValidationError } from '#core';
import type { ResultCheckType } from '#domain';
import { catalogueFor, parseCatalogueOptions, parseCheckType } from './catalogue-query.ts';
import { catalogueCheckTypes } from './catalogue.ts';

const detailed = parseCatalogueOptions({});
const names = (answer: ReturnType<typeof catalogueFor>, group: keyof ReturnType<typeof catalogueFor>['data']) =>
  answer.data[group].map((entry) => entry.name);

describe('metrics catalogue', () => {
  it('holds the spec names per group; web vitals for browser, heartbeat metrics for heartbeats', () => {
    const browser = catalogueFor('browser', detailed);
    expect(names(browser, 'responseTimeMetrics')).toEqual([
      'averageResponseTime',
      'medianResponseTime',
      'p95ResponseTime',
      'p99ResponseTime',
      'minResponseTime',
      'maxResponseTime',
    ]);
    expect(names(browser, 'successMetrics')).toEqual(['successRate', 'errorRate']);
    expect(names(browser, 'volumeMetrics')).toEqual(['totalRequests', 'successfulRequests', 'failedRequests']);
    expect(names(browser, 'browserSpecificMetrics')).toEqual([
      'firstContentfulPaint',
      'largestContentfulPaint',
      'cumulativeLayoutShift',
      'firstInputDelay',
      'timeToInteractive',
    ]);
    expect(names(browser, 'heartbeatSpecificMetrics')).toEqual([]);
    const heartbeat = catalogueFor('heartbeat', detailed);
    expect(names(heartbeat, 'heartbeatSpecificMetrics')).toEqual([
      'uptimePercentage',
      'missedHeartbeats',
      'averageHeartbeatInterval',
      'longestGap',
      'heartbeatConsistency',
    ]);
    expect(names(heartbeat, 'browserSpecificMetrics')).toEqual([]);
    expect(browser.meta).toEqual({
      totalMetrics: 16,
      categories: ['response_time', 'success_rate', 'volume', 'core_web_vitals', 'performance'],
      checkTypes: [...catalogueCheckTypes],
    });
  });

  it('gives the spec fields: units, data types, precision, ranges, methods', () => {
    const api = catalogueFor('api', detailed);
    expect(api.data.responseTimeMetrics[0]).toMatchObject({
      name: 'averageResponseTime',
      unit: 'milliseconds',
      dataType: 'number',
      precision: 2,
      range: { min: 0 },
      calculationMethod: 'arithmetic_mean',
      category: 'response_time',
      analyticsMetric: 'responseTime_avg',
    });
    expect(api.data.successMetrics[0]).toMatchObject({
      name: 'successRate',
      unit: 'percentage',
      range: { min: 0, max: 100 },
      analyticsMetric: 'availability',
    });
    expect(api.data.volumeMetrics[0]).toMatchObject({ unit: 'count', dataType: 'integer', calculationMethod: 'sum' });
    expect(catalogueFor('tcp', detailed).data.responseTimeMetrics[2]).toMatchObject({
      calculationMethod: 'percentile_95',
      analyticsMetric: 'total_p95',
    });
  });

  it('gives the Core Web Vitals thresholds and the guideline bands', () => {
    const vitals = Object.fromEntries(
      catalogueFor('browser', detailed).data.browserSpecificMetrics.map((entry) => [
        entry.name,
        [entry.unit, entry.goodThreshold, entry.needsImprovementThreshold],
      ]),
    );
    expect(vitals).toMatchObject({
      firstContentfulPaint: ['seconds', 1.8, 3.0],
      largestContentfulPaint: ['seconds', 2.5, 4.0],
      cumulativeLayoutShift: ['score', 0.1, 0.25],
      firstInputDelay: ['milliseconds', 100, 300],
    });
    const api = catalogueFor('api', detailed);
    expect(api.data.responseTimeMetrics[0]!.guidelines).toEqual([
      { rating: 'excellent', max: 200 },
      { rating: 'good', min: 200, max: 500 },
      { rating: 'fair', min: 500, max: 1000 },
      { rating: 'poor', min: 1000 },
    ]);
    expect(api.data.successMetrics[0]!.guidelines?.[0]).toEqual({ rating: 'excellent', min: 99.9 });
    const without = catalogueFor('browser', parseCatalogueOptions({ includeThresholds: 'false' }));
    expect(without.data.browserSpecificMetrics[0]).not.toHaveProperty('goodThreshold');
    expect(without.data.responseTimeMetrics[0]).not.toHaveProperty('guidelines');
  });

  it('filters by category, and shapes summary, examples and calculations', () => {
    const vitals = catalogueFor('browser', parseCatalogueOptions({ category: 'core_web_vitals' }));
    expect(vitals.meta.totalMetrics).toBe(4);
    expect(vitals.meta.categories).toEqual(['core_web_vitals']);
    expect(vitals.data.responseTimeMetrics).toEqual([]);
    const summary = catalogueFor('api', parseCatalogueOptions({ format: 'summary', includeThresholds: '0' }));
    expect(summary.data.responseTimeMetrics[0]).toEqual({
      name: 'averageResponseTime',
      displayName: 'Average response time',
      unit: 'milliseconds',
      category: 'response_time',
    });
    const extras = catalogueFor('api', parseCatalogueOptions({ includeExamples: 'true', includeCalculations: '1' }));
    expect(extras.data.responseTimeMetrics[0]).toMatchObject({
      example: { value: 245.67, formatted: '245.67 ms' },
      calculation: { method: 'arithmetic_mean', formula: 'sum(responseTime) / runs' },
    });
  });

  it('lists only analytics metrics the endpoint answers, volume and error rate on every type', () => {
    const types: Record<(typeof catalogueCheckTypes)[number], ResultCheckType> = {
      api: 'API',
      url: 'URL',
      tcp: 'TCP',
      browser: 'BROWSER',
      heartbeat: 'HEARTBEAT',
      multistep: 'MULTI_STEP',
      dns: 'DNS',
      playwright: 'PLAYWRIGHT',
    };
    for (const type of catalogueCheckTypes) {
      const answer = catalogueFor(type, detailed);
      const listed = Object.values(answer.data)
        .flat()
        .flatMap((entry) => (entry.analyticsMetric === undefined ? [] : [entry.analyticsMetric]));
      for (const name of listed) expect(() => parseMetrics([name], types[type]), `${type}: ${name}`).not.toThrow();
      expect(listed).toEqual(
        expect.arrayContaining(['totalRequests', 'successfulRequests', 'failedRequests', 'errorRate', 'availability']),
      );
    }
  });

  it('refuses unknown values, naming the parameter', () => {
    expect(() => parseCheckType('ftp')).toThrow(
      /^checkType: "ftp" is not a check type; use one of api, url, tcp, browser, heartbeat, multistep, dns, playwright$/,
    );
    for (const [name, value] of [
      ['category', 'speed'],
      ['format', 'long'],
      ['includeThresholds', 'yes'],
      ['includeExamples', 'x'],
      ['includeCalculations', '2'],
    ]) {
      expect(() => parseCatalogueOptions({ [name!]: value })).toThrow(ValidationError);
      expect(() => parseCatalogueOptions({ [name!]: value })).toThrow(new RegExp(`^${name}: `));
    }
  });
});
