import type { Migration } from './migrations.ts';
import { dailySelectSql, summedSelectSql } from './rollup/daily.ts';
import { watermarkRowBackfill } from './rollup/watermark-row.ts';

/**
 * ClickHouse schema. Every statement runs on ClickHouse 18.16 and on current releases, so:
 * no LowCardinality, DateTime64, TTL or Bool; booleans are UInt8.
 *
 * Exactly once: ReplacingMergeTree collapses rows with the same sorting key, and the key ends
 * with the result id. A redelivered result carries the same account, check and start time, so
 * its copy has the same key. Merges run whenever the server likes, so readers select
 * `FROM check_results FINAL`, which collapses the remaining copies at read time (works on
 * 18.16; its cost is measured in the adapter's int test and the report that introduced it).
 * The partition key uses started_at only, so copies always land in the same partition and
 * FINAL can see them together.
 *
 * Retention: TTL does not exist on 18.16, so data is kept per month and dropped a month at a
 * time: `ALTER TABLE check_results DROP PARTITION 202401` (the partition id is YYYYMM).
 *
 * Millisecond start times live in started_ms (UInt64 epoch ms) because DateTime64 is missing;
 * started_at (whole seconds, UTC) is the one in the sorting key and the partition key. Time
 * buckets use intDiv(toUInt32(started_at), seconds) * seconds, not toStartOfInterval.
 *
 * Per-page browser metrics are parallel arrays, one element per page in page order, so that
 * `ARRAY JOIN page_index, page_url, page_lcp, …` gives one row per page to group by.
 */
export const clickHouseMigrations: readonly Migration[] = [
  {
    version: 1,
    name: 'create check_results',
    statements: [
      `CREATE TABLE IF NOT EXISTS check_results (
        id UUID,
        account_id UUID,
        check_id UUID,
        check_type String,
        started_at DateTime('UTC'),
        started_ms UInt64,
        run_location String,
        has_failures UInt8,
        is_degraded UInt8,
        response_time Float64,
        attempts UInt16,
        error_message Nullable(String),
        status_code Nullable(UInt16),
        status_text Nullable(String),
        timing_wait Nullable(Float64),
        timing_dns Nullable(Float64),
        timing_tcp Nullable(Float64),
        timing_first_byte Nullable(Float64),
        timing_download Nullable(Float64),
        timing_total Nullable(Float64),
        timing_connection Nullable(Float64),
        timing_data Nullable(Float64),
        heartbeat_status Nullable(String),
        ssl_days_remaining Nullable(Int32),
        ssl_domain Nullable(String),
        page_index Array(UInt16),
        page_url Array(String),
        page_ttfb Array(Nullable(Float64)),
        page_fcp Array(Nullable(Float64)),
        page_lcp Array(Nullable(Float64)),
        page_cls Array(Nullable(Float64)),
        page_tbt Array(Nullable(Float64)),
        page_console_errors Array(UInt32),
        page_network_errors Array(UInt32),
        page_user_script_errors Array(UInt32),
        page_document_errors Array(UInt32)
      )
      ENGINE = ReplacingMergeTree()
      PARTITION BY toYYYYMM(started_at)
      ORDER BY (account_id, check_id, started_at, id)
      SETTINGS index_granularity = 8192`,
    ],
  },
  {
    // Hourly rollups (see rollup/sql.ts). ReplacingMergeTree keeps, per key, the row with the most
    // runs: raw rows only grow, so the roll that saw more of them is the newer one, whatever the
    // clocks of the processes that rolled. Readers select FROM check_rollups FINAL.
    version: 2,
    name: 'create check_rollups and rollup_watermarks',
    statements: [
      `CREATE TABLE IF NOT EXISTS check_rollups (
        account_id UUID,
        check_id UUID,
        metric String,
        hour DateTime('UTC'),
        run_location String,
        has_failures UInt8,
        runs UInt64,
        retries UInt64,
        total Float64,
        minimum Float64,
        maximum Float64,
        squares Float64,
        sketch_keys Array(Int32),
        sketch_counts Array(UInt64)
      )
      ENGINE = ReplacingMergeTree(runs)
      PARTITION BY toYYYYMM(hour)
      ORDER BY (account_id, check_id, metric, hour, run_location, has_failures)`,
      `CREATE TABLE IF NOT EXISTS rollup_watermarks (
        name String,
        value_ms UInt64,
        set_ms UInt64
      )
      ENGINE = MergeTree()
      ORDER BY (name, set_ms)`,
    ],
  },
  {
    // Per-assertion outcomes of a run, as JSON (the run view reads them back through zod). 18.16
    // has no ADD COLUMN IF NOT EXISTS: the adapter treats "already exists" here as done, for two
    // processes migrating at once.
    version: 3,
    name: 'add check_results.assertions',
    statements: [`ALTER TABLE check_results ADD COLUMN assertions Nullable(String)`],
  },
  {
    // A script run's steps, logs and requests as one JSON document (read back through zod).
    version: 4,
    name: 'add check_results.script',
    statements: [`ALTER TABLE check_results ADD COLUMN script Nullable(String)`],
  },
  {
    // Daily rollups without location (see rollup/daily.ts), sorted by check, kept like the hourly
    // ones (the row with the most runs is the newer roll). Small granules: a row carries a sketch
    // of ~200 buckets, and a query reads one check's ~60 rows per metric, not 8,192 of them (on
    // the hourly table, granularity 8,192 cost 40 ms where 256 took 20, 18.16 under load). Filled
    // from the hourly rollups already there; a second process doing the same inserts identical
    // rows, which collapse.
    version: 5,
    name: 'create check_rollups_daily',
    statements: [
      `CREATE TABLE IF NOT EXISTS check_rollups_daily (
        account_id UUID,
        check_id UUID,
        metric String,
        day DateTime('UTC'),
        has_failures UInt8,
        runs UInt64,
        retries UInt64,
        total Float64,
        minimum Float64,
        maximum Float64,
        squares Float64,
        sketch_keys Array(Int32),
        sketch_counts Array(UInt64)
      )
      ENGINE = ReplacingMergeTree(runs)
      PARTITION BY toYYYYMM(day)
      ORDER BY (account_id, check_id, metric, day, has_failures)
      SETTINGS index_granularity = 256`,
      `INSERT INTO check_rollups_daily ${dailySelectSql('clickhouse', 'check_rollups FINAL', '1')}`,
    ],
  },
  {
    // Hourly rollups without location (see rollup/daily.ts), read for the part-days at a busy
    // check's window edges: about 5x fewer rows, each with a sketch, than check_rollups there.
    // Kept like the daily ones; filled from the hourly rollups already there, and a process that
    // stops before recording the version fills again on the next start: the same rows, which
    // collapse under FINAL.
    version: 6,
    name: 'create check_rollups_no_location',
    statements: [
      `CREATE TABLE IF NOT EXISTS check_rollups_no_location (
        account_id UUID,
        check_id UUID,
        metric String,
        hour DateTime('UTC'),
        has_failures UInt8,
        runs UInt64,
        retries UInt64,
        total Float64,
        minimum Float64,
        maximum Float64,
        squares Float64,
        sketch_keys Array(Int32),
        sketch_counts Array(UInt64)
      )
      ENGINE = ReplacingMergeTree(runs)
      PARTITION BY toYYYYMM(hour)
      ORDER BY (account_id, check_id, metric, hour, has_failures)
      SETTINGS index_granularity = 256`,
      `INSERT INTO check_rollups_no_location ${summedSelectSql('clickhouse', 'check_rollups FINAL', '1', 'hour')}`,
    ],
  },
  {
    // The completed watermark as a row in each rollup table (rollup/watermark-row.ts), from the
    // mark already made, so readers keep reading rollups across the upgrade. Run again after a
    // stop before recording it, it writes the same rows, which collapse under FINAL.
    version: 7,
    name: 'add the watermark row to the rollup tables',
    statements: watermarkRowBackfill(),
  },
];

export const CLICKHOUSE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version UInt32,
  name String,
  applied_at DateTime('UTC')
)
ENGINE = ReplacingMergeTree()
ORDER BY version`;
