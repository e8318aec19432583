/**
 * The metrics catalogue (GET /v1/analytics/metrics/{checkType}): the spec's metric definitions,
 * with their names, units, precision, ranges, categories and the Core Web Vitals thresholds.
 * `analyticsBase` ties a definition to the analytics endpoint: `<base>_<suffix>` computes it
 * there (the check type picks the base: responseTime, or total for TCP and DNS).
 */
export const catalogueCheckTypes = [
  'api',
  'url',
  'tcp',
  'browser',
  'heartbeat',
  'multistep',
  'dns',
  'playwright',
] as const;
export type CatalogueCheckType = (typeof catalogueCheckTypes)[number];

export const metricCategories = [
  'response_time',
  'success_rate',
  'volume',
  'core_web_vitals',
  'heartbeat',
  'performance',
] as const;
export type MetricCategory = (typeof metricCategories)[number];

export const catalogueGroups = [
  'responseTimeMetrics',
  'successMetrics',
  'volumeMetrics',
  'browserSpecificMetrics',
  'heartbeatSpecificMetrics',
] as const;
export type CatalogueGroup = (typeof catalogueGroups)[number];

export interface GuidelineBand {
  rating: 'excellent' | 'good' | 'fair' | 'poor';
  min?: number;
  max?: number;
}

export interface MetricEntry {
  name: string;
  displayName: string;
  description: string;
  unit: 'milliseconds' | 'seconds' | 'percentage' | 'count' | 'score';
  dataType: 'number' | 'integer';
  availableFor: readonly CatalogueCheckType[];
  calculationMethod: string;
  precision: number;
  range: { min: number; max?: number };
  category: MetricCategory;
  goodThreshold?: number;
  needsImprovementThreshold?: number;
  /** Advisory bands; shown with includeThresholds. */
  guidelines?: readonly GuidelineBand[];
  /** The analytics metric that computes this, by check type; absent when the runners do not measure it. */
  analytics?: (checkType: CatalogueCheckType) => string | undefined;
  example: number;
  formula: string;
}

const all = catalogueCheckTypes;
const webVitalTypes: readonly CatalogueCheckType[] = ['browser', 'multistep'];

const responseTimeBands: GuidelineBand[] = [
  { rating: 'excellent', max: 200 },
  { rating: 'good', min: 200, max: 500 },
  { rating: 'fair', min: 500, max: 1000 },
  { rating: 'poor', min: 1000 },
];
const uptimeBands: GuidelineBand[] = [
  { rating: 'excellent', min: 99.9 },
  { rating: 'good', min: 99, max: 99.9 },
  { rating: 'fair', min: 95, max: 99 },
  { rating: 'poor', max: 95 },
];

/** The response-time base of the analytics endpoint for a type; heartbeats have none. */
function timeMetric(suffix: string) {
  return (type: CatalogueCheckType) =>
    type === 'heartbeat' ? undefined : `${type === 'tcp' || type === 'dns' ? 'total' : 'responseTime'}_${suffix}`;
}

function responseTime(
  name: string,
  displayName: string,
  method: string,
  suffix: string,
  what: string,
  example: number,
  formula: string,
): MetricEntry {
  return {
    name,
    displayName,
    description: `${what} of the runs in the window, in milliseconds.`,
    unit: 'milliseconds',
    dataType: 'number',
    availableFor: all,
    calculationMethod: method,
    precision: 2,
    range: { min: 0 },
    category: 'response_time',
    guidelines: responseTimeBands,
    analytics: timeMetric(suffix),
    example,
    formula,
  };
}

const percentileFormula = (p: number) =>
  `linear interpolation between the closest ranks of the sorted response times at (n - 1) × ${p}`;

const responseTimeMetrics: MetricEntry[] = [
  responseTime(
    'averageResponseTime',
    'Average response time',
    'arithmetic_mean',
    'avg',
    'Arithmetic mean of the response time',
    245.67,
    'sum(responseTime) / runs',
  ),
  responseTime(
    'medianResponseTime',
    'Median response time',
    'median',
    'median',
    'Median (50th percentile) of the response time',
    198.5,
    percentileFormula(0.5),
  ),
  responseTime(
    'p95ResponseTime',
    '95th percentile response time',
    'percentile_95',
    'p95',
    '95th percentile of the response time',
    612.2,
    percentileFormula(0.95),
  ),
  responseTime(
    'p99ResponseTime',
    '99th percentile response time',
    'percentile_99',
    'p99',
    '99th percentile of the response time',
    980.04,
    percentileFormula(0.99),
  ),
  responseTime(
    'minResponseTime',
    'Minimum response time',
    'minimum',
    'min',
    'Fastest response time',
    87.1,
    'min(responseTime)',
  ),
  responseTime(
    'maxResponseTime',
    'Maximum response time',
    'maximum',
    'max',
    'Slowest response time',
    1430.9,
    'max(responseTime)',
  ),
];

const rate = (
  name: string,
  displayName: string,
  description: string,
  analytics: string | undefined,
  example: number,
  formula: string,
  guidelines?: GuidelineBand[],
): MetricEntry => ({
  name,
  displayName,
  description,
  unit: 'percentage',
  dataType: 'number',
  availableFor: all,
  calculationMethod: 'percentage',
  precision: 2,
  range: { min: 0, max: 100 },
  category: 'success_rate',
  ...(guidelines ? { guidelines } : {}),
  analytics: () => analytics,
  example,
  formula,
});

const successMetrics: MetricEntry[] = [
  rate(
    'successRate',
    'Success rate',
    'Share of runs that passed, from 0 to 100.',
    'availability',
    99.52,
    '100 × passing runs / runs',
    uptimeBands,
  ),
  rate(
    'errorRate',
    'Error rate',
    'Share of runs that failed, from 0 to 100 (100 − successRate).',
    'errorRate',
    0.48,
    '100 × failing runs / runs',
  ),
];

const count = (
  name: string,
  displayName: string,
  description: string,
  example: number,
  formula: string,
): MetricEntry => ({
  name,
  displayName,
  description,
  unit: 'count',
  dataType: 'integer',
  availableFor: all,
  calculationMethod: 'sum',
  precision: 0,
  range: { min: 0 },
  category: 'volume',
  // The analytics endpoint answers each volume metric under its own name, for every check type.
  analytics: () => name,
  example,
  formula,
});

const volumeMetrics: MetricEntry[] = [
  count('totalRequests', 'Total requests', 'Runs in the window, retries not counted separately.', 1440, 'count(runs)'),
  count('successfulRequests', 'Successful requests', 'Runs that passed.', 1433, 'count(runs where passed)'),
  count('failedRequests', 'Failed requests', 'Runs that failed.', 7, 'count(runs where failed)'),
];

const vital = (entry: Omit<MetricEntry, 'availableFor' | 'dataType' | 'range'>): MetricEntry => ({
  ...entry,
  availableFor: webVitalTypes,
  dataType: 'number',
  range: { min: 0 },
});

const browserSpecificMetrics: MetricEntry[] = [
  vital({
    name: 'firstContentfulPaint',
    displayName: 'First Contentful Paint (FCP)',
    description:
      'Time until the first text or image is painted, in seconds (the analytics endpoint reports FCP in milliseconds).',
    unit: 'seconds',
    calculationMethod: 'arithmetic_mean',
    precision: 2,
    category: 'core_web_vitals',
    goodThreshold: 1.8,
    needsImprovementThreshold: 3.0,
    analytics: (type) => (type === 'browser' ? 'FCP_avg' : undefined),
    example: 1.42,
    formula: 'mean of FCP over every page of every run / 1000',
  }),
  vital({
    name: 'largestContentfulPaint',
    displayName: 'Largest Contentful Paint (LCP)',
    description:
      'Time until the largest content element is painted, in seconds (the analytics endpoint reports LCP in milliseconds).',
    unit: 'seconds',
    calculationMethod: 'arithmetic_mean',
    precision: 2,
    category: 'core_web_vitals',
    goodThreshold: 2.5,
    needsImprovementThreshold: 4.0,
    analytics: (type) => (type === 'browser' ? 'LCP_avg' : undefined),
    example: 2.13,
    formula: 'mean of LCP over every page of every run / 1000',
  }),
  vital({
    name: 'cumulativeLayoutShift',
    displayName: 'Cumulative Layout Shift (CLS)',
    description: 'How much visible content moves while the page loads; a unitless score.',
    unit: 'score',
    calculationMethod: 'arithmetic_mean',
    precision: 3,
    category: 'core_web_vitals',
    goodThreshold: 0.1,
    needsImprovementThreshold: 0.25,
    analytics: (type) => (type === 'browser' ? 'CLS_avg' : undefined),
    example: 0.045,
    formula: 'mean of CLS over every page of every run',
  }),
  vital({
    name: 'firstInputDelay',
    displayName: 'First Input Delay (FID)',
    description:
      'Delay between the first user input and the browser handling it, in milliseconds. Scripted runs have no real user, so runners do not report it.',
    unit: 'milliseconds',
    calculationMethod: 'arithmetic_mean',
    precision: 0,
    category: 'core_web_vitals',
    goodThreshold: 100,
    needsImprovementThreshold: 300,
    example: 64,
    formula: 'mean of FID over every page of every run',
  }),
  vital({
    name: 'timeToInteractive',
    displayName: 'Time to Interactive (TTI)',
    description: 'Time until the page responds reliably to input, in seconds.',
    unit: 'seconds',
    calculationMethod: 'arithmetic_mean',
    precision: 2,
    category: 'performance',
    example: 3.1,
    formula: 'mean of TTI over every page of every run / 1000',
  }),
];

const beat = (entry: Omit<MetricEntry, 'availableFor' | 'category'>): MetricEntry => ({
  ...entry,
  availableFor: ['heartbeat'],
  category: 'heartbeat',
});

const heartbeatSpecificMetrics: MetricEntry[] = [
  beat({
    name: 'uptimePercentage',
    displayName: 'Uptime',
    description: 'Share of heartbeat periods in which a ping arrived on time, from 0 to 100.',
    unit: 'percentage',
    dataType: 'number',
    calculationMethod: 'uptime_percentage',
    precision: 2,
    range: { min: 0, max: 100 },
    guidelines: uptimeBands,
    analytics: () => 'availability',
    example: 99.93,
    formula: '100 × periods passed / periods',
  }),
  beat({
    name: 'missedHeartbeats',
    displayName: 'Missed heartbeats',
    description: 'Periods that ended without a ping.',
    unit: 'count',
    dataType: 'integer',
    calculationMethod: 'sum',
    precision: 0,
    range: { min: 0 },
    example: 2,
    formula: 'count(periods with status FAILING)',
  }),
  beat({
    name: 'averageHeartbeatInterval',
    displayName: 'Average heartbeat interval',
    description: 'Mean time between consecutive pings, in seconds.',
    unit: 'seconds',
    dataType: 'number',
    calculationMethod: 'arithmetic_mean',
    precision: 2,
    range: { min: 0 },
    example: 60.4,
    formula: 'mean(ping[i] − ping[i − 1])',
  }),
  beat({
    name: 'longestGap',
    displayName: 'Longest gap',
    description: 'Longest time between consecutive pings, in seconds.',
    unit: 'seconds',
    dataType: 'number',
    calculationMethod: 'maximum',
    precision: 2,
    range: { min: 0 },
    example: 185,
    formula: 'max(ping[i] − ping[i − 1])',
  }),
  beat({
    name: 'heartbeatConsistency',
    displayName: 'Heartbeat consistency',
    description: 'Share of pings that arrived within their grace period, early or late ones excluded, from 0 to 100.',
    unit: 'percentage',
    dataType: 'number',
    calculationMethod: 'percentage',
    precision: 2,
    range: { min: 0, max: 100 },
    example: 97.5,
    formula: '100 × RECEIVED pings / pings',
  }),
];

export const catalogue: Readonly<Record<CatalogueGroup, readonly MetricEntry[]>> = {
  responseTimeMetrics,
  successMetrics,
  volumeMetrics,
  browserSpecificMetrics,
  heartbeatSpecificMetrics,
};
