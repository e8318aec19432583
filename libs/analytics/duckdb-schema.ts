import type { Migration } from './migrations.ts';
import { dailySelectSql, summedSelectSql } from './rollup/daily.ts';

/**
 * DuckDB schema: the same logical columns as ClickHouse (see clickhouse-schema.ts), so a query
 * differs between the engines only in function names. The primary key on the result id makes
 * `INSERT OR IGNORE` drop a redelivered copy, so every read sees each result once.
 * started_at holds UTC (TIMESTAMP has no zone); per-page metrics are parallel LISTs that
 * `UNNEST` side by side in one SELECT. There is no secondary index: DuckDB's ART indexes help
 * point lookups only and slow every insert, while its per-block min/max already prune scans.
 */
export const duckDbMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'create check_results',
    statements: [
      `CREATE TABLE IF NOT EXISTS check_results (
        id UUID PRIMARY KEY,
        account_id UUID NOT NULL,
        check_id UUID NOT NULL,
        check_type VARCHAR NOT NULL,
        started_at TIMESTAMP NOT NULL,
        started_ms BIGINT NOT NULL,
        run_location VARCHAR NOT NULL,
        has_failures UTINYINT NOT NULL,
        is_degraded UTINYINT NOT NULL,
        response_time DOUBLE NOT NULL,
        attempts USMALLINT NOT NULL,
        error_message VARCHAR,
        status_code USMALLINT,
        status_text VARCHAR,
        timing_wait DOUBLE,
        timing_dns DOUBLE,
        timing_tcp DOUBLE,
        timing_first_byte DOUBLE,
        timing_download DOUBLE,
        timing_total DOUBLE,
        timing_connection DOUBLE,
        timing_data DOUBLE,
        heartbeat_status VARCHAR,
        ssl_days_remaining INTEGER,
        ssl_domain VARCHAR,
        page_index USMALLINT[] NOT NULL,
        page_url VARCHAR[] NOT NULL,
        page_ttfb DOUBLE[] NOT NULL,
        page_fcp DOUBLE[] NOT NULL,
        page_lcp DOUBLE[] NOT NULL,
        page_cls DOUBLE[] NOT NULL,
        page_tbt DOUBLE[] NOT NULL,
        page_console_errors UINTEGER[] NOT NULL,
        page_network_errors UINTEGER[] NOT NULL,
        page_user_script_errors UINTEGER[] NOT NULL,
        page_document_errors UINTEGER[] NOT NULL
      )`,
    ],
  },
  {
    // Hourly rollups (see rollup/sql.ts); a re-roll deletes a key's rows and inserts them again in
    // one transaction, so no primary key (it would slow every insert).
    version: 2,
    name: 'create check_rollups and rollup_watermarks',
    statements: [
      `CREATE TABLE IF NOT EXISTS check_rollups (
        account_id UUID NOT NULL,
        check_id UUID NOT NULL,
        metric VARCHAR NOT NULL,
        hour TIMESTAMP NOT NULL,
        run_location VARCHAR NOT NULL,
        has_failures UTINYINT NOT NULL,
        runs UBIGINT NOT NULL,
        retries UBIGINT NOT NULL,
        total DOUBLE NOT NULL,
        minimum DOUBLE NOT NULL,
        maximum DOUBLE NOT NULL,
        squares DOUBLE NOT NULL,
        sketch_keys INTEGER[] NOT NULL,
        sketch_counts UBIGINT[] NOT NULL
      )`,
      `CREATE TABLE IF NOT EXISTS rollup_watermarks (
        name VARCHAR NOT NULL,
        value_ms BIGINT NOT NULL,
        set_ms BIGINT NOT NULL
      )`,
    ],
  },
  {
    // Per-assertion outcomes of a run, as JSON (the run view reads them back through zod).
    version: 3,
    name: 'add check_results.assertions',
    statements: [`ALTER TABLE check_results ADD COLUMN IF NOT EXISTS assertions VARCHAR`],
  },
  {
    // A script run's steps, logs and requests as one JSON document (read back through zod).
    version: 4,
    name: 'add check_results.script',
    statements: [`ALTER TABLE check_results ADD COLUMN IF NOT EXISTS script VARCHAR`],
  },
  {
    // Daily rollups without location (see rollup/daily.ts): a busy check's month is ~30 rows per
    // metric and pass/fail instead of ~720 × locations. Filled from the hourly rollups already
    // there, so a store rolled before this version answers from both at once.
    version: 5,
    name: 'create check_rollups_daily',
    statements: [
      `CREATE TABLE IF NOT EXISTS check_rollups_daily (
        account_id UUID NOT NULL,
        check_id UUID NOT NULL,
        metric VARCHAR NOT NULL,
        day TIMESTAMP NOT NULL,
        has_failures UTINYINT NOT NULL,
        runs UBIGINT NOT NULL,
        retries UBIGINT NOT NULL,
        total DOUBLE NOT NULL,
        minimum DOUBLE NOT NULL,
        maximum DOUBLE NOT NULL,
        squares DOUBLE NOT NULL,
        sketch_keys INTEGER[] NOT NULL,
        sketch_counts UBIGINT[] NOT NULL
      )`,
      `DELETE FROM check_rollups_daily`,
      `INSERT INTO check_rollups_daily ${dailySelectSql('duckdb', 'check_rollups', 'true')}`,
    ],
  },
  {
    // Hourly rollups without location (see rollup/daily.ts), read for the part-days at a busy
    // check's window edges. Filled from the hourly rollups already there, in the migration's
    // transaction.
    version: 6,
    name: 'create check_rollups_no_location',
    statements: [
      `CREATE TABLE IF NOT EXISTS check_rollups_no_location (
        account_id UUID NOT NULL,
        check_id UUID NOT NULL,
        metric VARCHAR NOT NULL,
        hour TIMESTAMP NOT NULL,
        has_failures UTINYINT NOT NULL,
        runs UBIGINT NOT NULL,
        retries UBIGINT NOT NULL,
        total DOUBLE NOT NULL,
        minimum DOUBLE NOT NULL,
        maximum DOUBLE NOT NULL,
        squares DOUBLE NOT NULL,
        sketch_keys INTEGER[] NOT NULL,
        sketch_counts UBIGINT[] NOT NULL
      )`,
      `DELETE FROM check_rollups_no_location`,
      `INSERT INTO check_rollups_no_location ${summedSelectSql('duckdb', 'check_rollups', 'true', 'hour')}`,
    ],
  },
];

export const DUCKDB_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name VARCHAR NOT NULL,
  applied_at TIMESTAMP NOT NULL
)`;
