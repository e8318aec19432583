import { describe, expect, it } from 'vitest';
import { resultCheckTypes } from '#domain';
import { AGGREGATIONS, allowedMetricNames, baseMetrics, metricMetadata, parseMetrics } from './metrics.ts';

describe('metrics per check type', () => {
  it('match the issue table', () => {
    const bases = Object.fromEntries(
      resultCheckTypes.map((type) => [type, baseMetrics[type].map((base) => base.name)]),
    );
    expect(bases).toEqual({
      API: ['responseTime', 'wait', 'dns', 'tcp', 'firstByte', 'download'],
      URL: ['responseTime', 'wait', 'dns', 'tcp', 'firstByte', 'download'],
      BROWSER: [
        'responseTime',
        'TTFB',
        'FCP',
        'LCP',
        'CLS',
        'TBT',
        'consoleErrors',
        'networkErrors',
        'userScriptErrors',
        'documentErrors',
      ],
      MULTI_STEP: ['responseTime'],
      PLAYWRIGHT: ['responseTime'],
      TCP: ['total', 'dns', 'connection', 'data'],
      DNS: ['total'],
      HEARTBEAT: [],
    });
  });

  it('give every base ten suffixes, plus availability, retries and the run counts', () => {
    expect(allowedMetricNames('BROWSER')).toHaveLength(6 + 10 + 10 * AGGREGATIONS.length);
    expect(allowedMetricNames('HEARTBEAT')).toEqual([
      'availability',
      'retries',
      'totalRequests',
      'successfulRequests',
      'failedRequests',
      'errorRate',
    ]);
    for (const type of resultCheckTypes) {
      const bases = new Set(baseMetrics[type].map((base) => base.name));
      const aggregated = allowedMetricNames(type).filter((name) => !bases.has(name));
      expect(parseMetrics(aggregated, type).every((metric) => metric.kind !== 'raw')).toBe(true);
      if (bases.size > 0) expect(parseMetrics([...bases], type).every((metric) => metric.kind === 'raw')).toBe(true);
    }
  });
});

describe('metricMetadata', () => {
  const meta = (name: string, type: Parameters<typeof parseMetrics>[1] = 'BROWSER') =>
    metricMetadata(parseMetrics([name], type)[0]!);
  it('gives units: ms for times, score for CLS, count for errors and retries, percentage for availability', () => {
    expect(meta('responseTime_avg')).toEqual({
      unit: 'milliseconds',
      label: 'Response time (average)',
      aggregation: 'avg',
    });
    expect(meta('LCP_p95')).toMatchObject({ unit: 'milliseconds', aggregation: 'p95' });
    expect(meta('CLS_median')).toMatchObject({ unit: 'score', aggregation: 'median' });
    expect(meta('consoleErrors_sum')).toMatchObject({ unit: 'count', aggregation: 'sum' });
    expect(meta('availability')).toMatchObject({ unit: 'percentage' });
    expect(meta('retries')).toMatchObject({ unit: 'count', aggregation: 'sum' });
    expect(meta('TTFB')).toMatchObject({ unit: 'milliseconds', aggregation: 'none' });
  });
});
