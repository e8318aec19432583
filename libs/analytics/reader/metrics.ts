import { ValidationError } from '#core';
import type { ResultCheckType } from '#domain';

export type MetricUnit = 'milliseconds' | 'count' | 'percentage' | 'score';

export const AGGREGATIONS = ['avg', 'max', 'median', 'min', 'p50', 'p90', 'p95', 'p99', 'stddev', 'sum'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

/**
 * Where a base metric's samples come from. A run metric has one sample per run (a column, or an
 * expression both engines read the same). A page metric has one sample per page of a browser run:
 * the per-page arrays, unrolled with ARRAY JOIN (ClickHouse) or UNNEST (DuckDB).
 */
export type MetricSource = { level: 'run'; sql: string } | { level: 'page'; array: PageArray };

export type PageArray =
  | 'page_ttfb'
  | 'page_fcp'
  | 'page_lcp'
  | 'page_cls'
  | 'page_tbt'
  | 'page_console_errors'
  | 'page_network_errors'
  | 'page_user_script_errors'
  | 'page_document_errors';

export interface BaseMetric {
  name: string;
  label: string;
  unit: MetricUnit;
  source: MetricSource;
}

const run = (name: string, label: string, sql: string): BaseMetric => ({
  name,
  label,
  unit: 'milliseconds',
  source: { level: 'run', sql },
});
const page = (name: string, label: string, unit: MetricUnit, array: PageArray): BaseMetric => ({
  name,
  label,
  unit,
  source: { level: 'page', array },
});

const responseTime = run('responseTime', 'Response time', 'response_time');
// A TCP or DNS runner that reports no `total` phase still measured the run: its response time is the total.
const total = run('total', 'Total time', 'coalesce(timing_total, response_time)');

const httpBases = [
  responseTime,
  run('wait', 'Wait', 'timing_wait'),
  run('dns', 'DNS lookup', 'timing_dns'),
  run('tcp', 'TCP connect', 'timing_tcp'),
  run('firstByte', 'Time to first byte', 'timing_first_byte'),
  run('download', 'Download', 'timing_download'),
];

const browserBases = [
  responseTime,
  page('TTFB', 'Time to first byte', 'milliseconds', 'page_ttfb'),
  page('FCP', 'First contentful paint', 'milliseconds', 'page_fcp'),
  page('LCP', 'Largest contentful paint', 'milliseconds', 'page_lcp'),
  page('CLS', 'Cumulative layout shift', 'score', 'page_cls'),
  page('TBT', 'Total blocking time', 'milliseconds', 'page_tbt'),
  page('consoleErrors', 'Console errors', 'count', 'page_console_errors'),
  page('networkErrors', 'Network errors', 'count', 'page_network_errors'),
  page('userScriptErrors', 'User script errors', 'count', 'page_user_script_errors'),
  page('documentErrors', 'Document errors', 'count', 'page_document_errors'),
];

/** Base metrics per check type (the table). Every type also has availability and retries. */
export const baseMetrics: Readonly<Record<ResultCheckType, readonly BaseMetric[]>> = {
  API: httpBases,
  URL: httpBases,
  BROWSER: browserBases,
  MULTI_STEP: [responseTime],
  PLAYWRIGHT: [responseTime],
  TCP: [
    total,
    run('dns', 'DNS lookup', 'timing_dns'),
    run('connection', 'Connection', 'timing_connection'),
    run('data', 'Data transfer', 'timing_data'),
  ],
  DNS: [total],
  HEARTBEAT: [],
};

export type RequestedMetric =
  | { name: string; kind: 'aggregate'; base: BaseMetric; aggregation: Aggregation }
  | { name: string; kind: 'raw'; base: BaseMetric }
  | { name: string; kind: 'availability' }
  | { name: string; kind: 'retries' }
  | { name: string; kind: 'runCount'; count: RunCount };

/**
 * Run counts the metric catalogue lists (volume and success rate), for every check type:
 * totalRequests (runs), successfulRequests, failedRequests, and errorRate (100 − availability).
 */
export const RUN_COUNTS = {
  totalRequests: 'total',
  successfulRequests: 'successful',
  failedRequests: 'failed',
  errorRate: 'errorRate',
} as const;
export type RunCount = (typeof RUN_COUNTS)[keyof typeof RUN_COUNTS];
const RUN_COUNT_NAMES = Object.keys(RUN_COUNTS) as (keyof typeof RUN_COUNTS)[];

export interface MetricMetadata {
  unit: MetricUnit;
  label: string;
  aggregation: string;
}

const aggregationLabels: Record<Aggregation, string> = {
  avg: 'average',
  max: 'maximum',
  median: 'median',
  min: 'minimum',
  p50: '50th percentile',
  p90: '90th percentile',
  p95: '95th percentile',
  p99: '99th percentile',
  stddev: 'standard deviation',
  sum: 'sum',
};

/** Every metric name a check type accepts, for docs and error messages. */
export function allowedMetricNames(checkType: ResultCheckType): string[] {
  const bases = baseMetrics[checkType];
  return [
    'availability',
    'retries',
    ...RUN_COUNT_NAMES,
    ...bases.map((base) => base.name),
    ...bases.flatMap((base) => AGGREGATIONS.map((agg) => `${base.name}_${agg}`)),
  ];
}

/** One line that lists what a type allows without spelling out all 100+ names. */
export function describeAllowedMetrics(checkType: ResultCheckType): string {
  const bases = baseMetrics[checkType].map((base) => base.name);
  const always = ['availability', 'retries', ...RUN_COUNT_NAMES].join(', ');
  if (bases.length === 0) return `${checkType} checks allow ${always}`;
  return (
    `${checkType} checks allow ${always}, <base>_<suffix> with base in ${bases.join(', ')} ` +
    `and suffix in ${AGGREGATIONS.join(', ')}, or a base alone for raw runs`
  );
}

/**
 * Parses metric names, in request order without repeats. A raw metric (a base alone) returns
 * individual runs, so it cannot share a request with aggregated ones.
 */
export function parseMetrics(names: readonly string[], checkType: ResultCheckType): RequestedMetric[] {
  if (names.length === 0) throw new ValidationError('metrics: required; for example metrics=availability');
  const bases = new Map(baseMetrics[checkType].map((base) => [base.name, base]));
  const parsed: RequestedMetric[] = [];
  for (const name of [...new Set(names)]) {
    const metric = parseOne(name, bases);
    if (!metric)
      throw new ValidationError(
        `metrics: "${name}" is not a metric of ${checkType} checks; ${describeAllowedMetrics(checkType)}`,
      );
    parsed.push(metric);
  }
  const raw = parsed.filter((metric) => metric.kind === 'raw');
  if (raw.length > 0 && raw.length < parsed.length) {
    const aggregated = parsed.find((metric) => metric.kind !== 'raw')!;
    throw new ValidationError(
      `metrics: raw metrics (${raw.map((metric) => metric.name).join(', ')}) return individual runs and cannot be mixed with aggregated ones (${aggregated.name}); send two requests`,
    );
  }
  return parsed;
}

function parseOne(name: string, bases: Map<string, BaseMetric>): RequestedMetric | undefined {
  if (name === 'availability' || name === 'retries') return { name, kind: name };
  if (name in RUN_COUNTS) return { name, kind: 'runCount', count: RUN_COUNTS[name as keyof typeof RUN_COUNTS] };
  const plain = bases.get(name);
  if (plain) return { name, kind: 'raw', base: plain };
  const cut = name.lastIndexOf('_');
  if (cut < 0) return undefined;
  const base = bases.get(name.slice(0, cut));
  const aggregation = name.slice(cut + 1) as Aggregation;
  if (!base || !AGGREGATIONS.includes(aggregation)) return undefined;
  return { name, kind: 'aggregate', base, aggregation };
}

export function metricMetadata(metric: RequestedMetric): MetricMetadata {
  switch (metric.kind) {
    case 'availability':
      return { unit: 'percentage', label: 'Availability (passing runs / runs)', aggregation: 'ratio' };
    case 'retries':
      return { unit: 'count', label: 'Retries', aggregation: 'sum' };
    case 'runCount':
      return runCountMetadata[metric.count];
    case 'raw':
      return { unit: metric.base.unit, label: metric.base.label, aggregation: 'none' };
    case 'aggregate': {
      // A sum of error counts is a count; a stddev or percentile keeps the base's unit.
      return {
        unit: metric.base.unit,
        label: `${metric.base.label} (${aggregationLabels[metric.aggregation]})`,
        aggregation: metric.aggregation,
      };
    }
  }
}

const runCountMetadata: Record<RunCount, MetricMetadata> = {
  total: { unit: 'count', label: 'Total requests (runs)', aggregation: 'count' },
  successful: { unit: 'count', label: 'Successful requests (passing runs)', aggregation: 'count' },
  failed: { unit: 'count', label: 'Failed requests (failing runs)', aggregation: 'count' },
  errorRate: { unit: 'percentage', label: 'Error rate (failing runs / runs)', aggregation: 'ratio' },
};
