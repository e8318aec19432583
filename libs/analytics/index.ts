export type { AnalyticsStore, ResultFilter } from './port.ts';
export { createClickHouseAnalyticsStore, type ClickHouseAnalyticsOptions } from './clickhouse.ts';
export { createDuckDbAnalyticsStore, type DuckDbAnalyticsOptions } from './duckdb.ts';
export { createAnalyticsStore, type AnalyticsStoreConfig } from './create.ts';
export { sqlString, sqlNumber, sqlIdentifier, sqlDateTime, formatDateTime, type SqlDialect } from './sql.ts';
export { RESULTS_TABLE, RESULT_COLUMNS, toResultRow, type ResultRow } from './row.ts';
export { sampleCheckResult } from './fixtures.ts';
// The contract suite (./contract.ts, analyticsStoreContract) is deliberately not re-exported: it
// imports vitest, a dev dependency, and every app imports this file at start-up.
