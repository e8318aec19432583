import { join } from 'node:path';
import type { Logger } from '#core';
import { createClickHouseAnalyticsStore } from './clickhouse.ts';
import { createDuckDbAnalyticsStore } from './duckdb.ts';
import type { AnalyticsStore } from './port.ts';

export interface AnalyticsStoreConfig {
  /** CLICKHOUSE_URL; when set, ClickHouse is used. */
  clickhouseUrl?: string | undefined;
  /** Defaults to `vigil`. */
  clickhouseDatabase?: string | undefined;
  /** DATA_DIR; the embedded store lives at <dataDir>/analytics.duckdb. */
  dataDir: string;
  log: Logger;
}

/** ClickHouse when a URL is configured, else DuckDB in the data directory. Call migrate() next. */
export function createAnalyticsStore(config: AnalyticsStoreConfig): AnalyticsStore {
  if (config.clickhouseUrl) {
    const database = config.clickhouseDatabase ?? 'vigil';
    config.log.info({ adapter: 'clickhouse', database }, 'analytics store selected');
    return createClickHouseAnalyticsStore({ url: config.clickhouseUrl, database, log: config.log });
  }
  const path = join(config.dataDir, 'analytics.duckdb');
  config.log.info({ adapter: 'duckdb', path }, 'analytics store selected');
  return createDuckDbAnalyticsStore({ path, log: config.log });
}
