import type { CheckResult } from '#domain';
import type { Watermarks } from './rollup/maintain.ts';
import type { SqlDialect } from './sql.ts';

export interface ResultFilter {
  accountId?: string;
  checkId?: string;
}

/**
 * The analytics store: one wide table of check results (`check_results`, see the adapters'
 * schema files), written by the ingestor and read by the analytics endpoints.
 *
 * Exactly-once counting: inserting a result id again, in the same batch or a later one (a
 * redelivery after a crash), never makes it count twice in what `source` returns.
 */
export interface AnalyticsStore {
  /** Which SQL the engine speaks; pass it to sqlString. */
  readonly dialect: SqlDialect;
  /**
   * The FROM clause under which each result appears exactly once: `check_results FINAL` on
   * ClickHouse (duplicates collapse at read time until merges remove them), `check_results` on
   * DuckDB (the primary key refuses them). Readers must select from this, never the bare table.
   */
  readonly source: string;

  /**
   * Hourly rollups of the raw results (rollup/sql.ts), kept up to date by insert: closed hours are
   * rolled on the first insert after they close, and an insert into a closed hour re-rolls it.
   */
  readonly rollups: {
    /** FROM clause under which each rollup key appears once (`check_rollups FINAL` on ClickHouse). */
    readonly source: string;
    /** FROM clause of the daily rollups without location (rollup/daily.ts), one row per key. */
    readonly daily: string;
    watermarks(): Promise<Watermarks>;
    /** Rolls every hour that closed since the last roll; safe to repeat. */
    advance(): Promise<Watermarks>;
    /** Drops every rollup and rolls every closed hour again from the raw results; idempotent. */
    rebuild(): Promise<Watermarks>;
  };

  /**
   * Rewrites the raw results sorted by account, check and start time, so a one-check query reads
   * only that check's blocks (DuckDB: see duckdb-cluster.ts). Absent where the engine keeps that
   * order itself (ClickHouse's ORDER BY). Answers are the same before and after.
   */
  cluster?(): Promise<{ rows: number }>;
  /** Creates the database and tables; numbered, recorded in schema_migrations, safe to repeat. */
  migrate(): Promise<void>;
  /** Idempotent by result id. Throws UnavailableError when the engine cannot be reached. */
  insert(results: readonly CheckResult[]): Promise<void>;
  /** Distinct results, as analytics queries see them. */
  countResults(filter?: ResultFilter): Promise<number>;
  /**
   * Runs a query built with the sql helpers, for the analytics reader and tests. ClickHouse runs
   * it with readonly=2 (no writes, no DDL); DuckDB has no such switch, so callers send SELECTs
   * only. Rows are plain objects, the same from both engines: integers and
   * floats as JS numbers (NaN → null), timestamps as 'YYYY-MM-DD hh:mm:ss' UTC strings, UUIDs as
   * strings, arrays as arrays.
   */
  query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
