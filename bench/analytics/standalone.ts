import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, generateApiKey } from '#core';
import { loadStandaloneConfig, startStandalone } from '../../apps/standalone/index.ts';
import { benchConfig } from '../config.ts';
import { cleanUp, runSuffix } from '../support/services.ts';
import { ENCRYPTION_KEY } from '../support/vigil.ts';

/**
 * The Vigil the analytics benches ask, started in this process: the API and projector on
 * embedded adapters (DuckDB), or on ClickHouse and Redis in a database and key prefix of their
 * own; no rate limit worth the name; the check window off unless env turns it on, so the
 * benches that time first reads time them. stop() stops it and removes its data.
 */
export async function startAnalyticsVigil(engine: 'clickhouse' | 'duckdb', env: Record<string, string> = {}) {
  const suffix = runSuffix();
  const names = { database: `vigil_bench_analytics_${suffix}`, redisPrefix: `vigil-bench-${suffix}:` };
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-analytics-'));
  const adminKey = generateApiKey();
  const distributed = {
    CLICKHOUSE_URL: benchConfig.clickhouseUrl,
    CLICKHOUSE_DATABASE: names.database,
    REDIS_URL: benchConfig.redisUrl,
    REDIS_KEY_PREFIX: names.redisPrefix,
  };
  const running = await startStandalone(
    loadStandaloneConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      VIGIL_ADMIN_KEY: adminKey,
      VIGIL_ENCRYPTION_KEY: ENCRYPTION_KEY,
      VIGIL_STANDALONE_APPS: 'api,projector',
      VIGIL_RATE_LIMIT_PER_MINUTE: '1000000',
      VIGIL_ANALYTICS_WINDOW_ROWS: '0',
      ...env,
      ...(engine === 'clickhouse' ? distributed : {}),
    }),
    createLogger({ level: 'silent' }),
  );
  return {
    running,
    adminKey,
    async stop() {
      await running.stop();
      rmSync(dataDir, { recursive: true, force: true });
      if (engine === 'clickhouse') await cleanUp(names);
    },
  };
}
