import { z } from 'zod';
import { parseConfig } from '#core';
import { platformEnv } from '#platform';

/** The rollup command needs only where the analytics store is: ClickHouse, or DuckDB in DATA_DIR. */
export const rollupConfigSchema = z.object({
  LOG_LEVEL: platformEnv.LOG_LEVEL,
  DATA_DIR: platformEnv.DATA_DIR,
  CLICKHOUSE_URL: platformEnv.CLICKHOUSE_URL,
  CLICKHOUSE_DATABASE: platformEnv.CLICKHOUSE_DATABASE,
});
export type RollupConfig = z.output<typeof rollupConfigSchema>;

export function loadRollupConfig(source: Record<string, string | undefined> = process.env): RollupConfig {
  return parseConfig(rollupConfigSchema, source);
}
