import { Command } from 'commander';
import { createAnalyticsStore } from '#analytics';
import { createLogger, isAppError } from '#core';
import { loadRollupConfig } from './config.ts';

// `npm run analytics:rollup [-- --rebuild]`: rolls the analytics rollups up to the last closed hour.
const program = new Command('analytics:rollup')
  .description(
    'Roll every closed hour of check results into the hourly and daily rollups the analytics endpoints read. ' +
      'Inserts keep them current on their own; --rebuild recomputes every rollup from the raw results (idempotent).',
  )
  .option('--rebuild', 'drop every rollup and roll all closed hours again from the raw results')
  .option(
    '--cluster',
    'DuckDB only: rewrite the raw results sorted by check first, so one-check queries skip other checks’ blocks (run it daily)',
  )
  .addHelpText(
    'after',
    '\nThe store is the one the apps use: CLICKHOUSE_URL and CLICKHOUSE_DATABASE, else DuckDB in DATA_DIR.\n' +
      'Example:\n  CLICKHOUSE_URL=http://127.0.0.1:8123 npm run analytics:rollup -- --rebuild',
  )
  .parse();
const options = program.opts<{ rebuild?: boolean; cluster?: boolean }>();
const config = loadRollupConfig();
const log = createLogger({ name: 'analytics-rollup', level: config.LOG_LEVEL });
const store = createAnalyticsStore({
  clickhouseUrl: config.CLICKHOUSE_URL,
  clickhouseDatabase: config.CLICKHOUSE_DATABASE,
  dataDir: config.DATA_DIR,
  log,
});
try {
  await store.migrate();
  const started = performance.now();
  const marks = options.rebuild ? await store.rollups.rebuild() : await store.rollups.advance();
  const ms = Math.round(performance.now() - started);
  process.stdout.write(
    `${options.rebuild ? 'rebuilt' : 'rolled'} analytics rollups up to ${new Date(marks.completed).toISOString()} in ${ms} ms\n`,
  );
  if (options.cluster) {
    // ClickHouse keeps that order by itself (its ORDER BY), so it has nothing to do here.
    const clusteredAt = performance.now();
    const done = store.cluster ? await store.cluster() : undefined;
    const took = Math.round(performance.now() - clusteredAt);
    process.stdout.write(
      done ? `clustered ${done.rows} results by check in ${took} ms\n` : 'clustering: nothing to do on this engine\n',
    );
  }
  await store.close();
} catch (error) {
  log.fatal({ err: isAppError(error) ? { message: error.message, code: error.code } : error }, 'rollup failed');
  await store.close().catch(() => undefined);
  process.exit(1);
}
