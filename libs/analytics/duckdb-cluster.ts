import type { DuckDBConnection } from '@duckdb/node-api';
import { InternalError } from '#core';
import { DAILY_TABLE, NO_LOCATION_TABLE } from './rollup/daily.ts';
import { ROLLUP_TABLE } from './rollup/sql.ts';
import { RESULTS_TABLE } from './row.ts';

/**
 * Rewrites check_results sorted by (account, check, start time), and the rollup tables sorted by
 * check, in one transaction.
 *
 * Why: rows arrive in time order, so a check's runs are spread over every row group and a
 * one-check query scans the whole check_id column (2M rows: about 30 ms, most of the one-check
 * latency). Sorted, each row group's min/max of check_id covers a narrow range and DuckDB skips
 * the others: the same query then reads one or two row groups. Rows appended afterwards are in
 * time order again and are scanned in full until the next run, so this is a periodic job
 * (`npm run analytics:rollup -- --cluster`), not part of an insert.
 *
 * The copy is created from the table's own DDL (as the catalogue prints it, after every
 * migration), so it keeps every column and the primary key on id that makes inserts exactly
 * once. Readers and writers share the store's one connection, so none runs in the middle; a
 * failure rolls back to the table as it was.
 */
export async function clusterResults(connection: DuckDBConnection): Promise<{ rows: number }> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const rows = await rewriteSorted(connection, RESULTS_TABLE, 'account_id, check_id, started_ms, id');
    // The rollups too: a busy check's rollup read then skips every other check's row groups
    // (hourly rows are ~10 per run-hour and location, so they outgrow the raw rows' benefit).
    await rewriteSorted(connection, ROLLUP_TABLE, 'account_id, check_id, metric, hour, run_location, has_failures');
    await rewriteSorted(connection, DAILY_TABLE, 'account_id, check_id, metric, day, has_failures');
    await rewriteSorted(connection, NO_LOCATION_TABLE, 'account_id, check_id, metric, hour, has_failures');
    await connection.run('COMMIT');
    return { rows };
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** Replaces `table` with a copy sorted by `order`, from its own DDL; the caller holds a transaction. */
async function rewriteSorted(connection: DuckDBConnection, table: string, order: string): Promise<number> {
  const found = await connection.runAndReadAll(
    `SELECT sql FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = '${table}'`,
  );
  const ddl = found.getRowObjectsJS()[0]?.sql;
  const prefix = `CREATE TABLE ${table}(`;
  if (typeof ddl !== 'string' || !ddl.startsWith(prefix))
    throw new InternalError(`cannot cluster ${table}: unexpected DDL ${String(ddl).slice(0, 80)}`);
  const sorted = `${table}_clustered`;
  await connection.run(`DROP TABLE IF EXISTS ${sorted}`);
  await connection.run(`CREATE TABLE ${sorted}(${ddl.slice(prefix.length)}`);
  // Insertion order is kept (preserve_insertion_order is on by default), so ORDER BY is the layout.
  const inserted = await connection.runAndReadAll(`INSERT INTO ${sorted} SELECT * FROM ${table} ORDER BY ${order}`);
  await connection.run(`DROP TABLE ${table}`);
  await connection.run(`ALTER TABLE ${sorted} RENAME TO ${table}`);
  return Number(inserted.getRowObjectsJS()[0]?.Count ?? 0);
}
