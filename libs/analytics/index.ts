export type { AnalyticsStore, ResultFilter } from './port.ts';
export type { Watermarks } from './rollup/maintain.ts';
export { SKETCH_ALPHA } from './rollup/sketch.ts';
export {
  createClickHouseAnalyticsStore,
  type ClickHouseAnalyticsOptions,
  type ClickHouseConnection,
} from './clickhouse.ts';
export { createDuckDbAnalyticsStore, type DuckDbAnalyticsOptions } from './duckdb.ts';
export { createAnalyticsStore, type AnalyticsStoreConfig } from './create.ts';
export { sqlString, sqlNumber, sqlIdentifier, sqlDateTime, formatDateTime, type SqlDialect } from './sql.ts';
export { RESULTS_TABLE, RESULT_COLUMNS, toResultRow, type ResultRow } from './row.ts';
export { sampleCheckResult } from './fixtures.ts';
export {
  createAnalyticsReader,
  type AnalyticsReader,
  type AnalyticsReaderOptions,
  type AnalyticsAnswer,
  type SeriesEntry,
  type DataPoint,
} from './reader/reader.ts';
export {
  parseAnalyticsParams,
  groupByOptions,
  statusFilterOptions,
  type AnalyticsQuery,
  type AnalyticsRequest,
  type GroupBy,
  type StatusFilter,
  type RawParams,
} from './reader/params.ts';
export {
  AGGREGATIONS,
  baseMetrics,
  allowedMetricNames,
  describeAllowedMetrics,
  parseMetrics,
  metricMetadata,
  type Aggregation,
  type BaseMetric,
  type MetricMetadata,
  type MetricUnit,
  type RequestedMetric,
} from './reader/metrics.ts';
export {
  QUICK_RANGES,
  MAX_BUCKETS,
  quickRangeWindow,
  resolveWindow,
  parseInstant,
  bucketStarts,
  type QuickRange,
  type TimeWindow,
} from './reader/window.ts';
export { createCheckWindow, type CheckWindow, type CheckWindowOptions, type WindowStats } from './window/window.ts';
export { withChangeTokens, type ChangeTokens, type CheckKey, type KnownToken } from './window/tokens.ts';
export { createStateStoreTokens } from './window/state-tokens.ts';
// The contract suite (./contract.ts, analyticsStoreContract) is deliberately not re-exported: it
// imports vitest, a dev dependency, and every app imports this file at start-up.
