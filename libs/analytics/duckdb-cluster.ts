import type { DuckDBConnection } from '@duckdb/node-api';
import { InternalError } from '#core';
import { RESULTS_TABLE } from './row.ts';

const CLUSTERED = `${RESULTS_TABLE}_clustered`;

/**
 * Rewrites check_results sorted by (account, check, start time), in one transaction.
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
  const found = await connection.runAndReadAll(
    `SELECT sql FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = '${RESULTS_TABLE}'`,
  );
  const ddl = found.getRowObjectsJS()[0]?.sql;
  const prefix = `CREATE TABLE ${RESULTS_TABLE}(`;
  if (typeof ddl !== 'string' || !ddl.startsWith(prefix))
    throw new InternalError(`cannot cluster ${RESULTS_TABLE}: unexpected DDL ${String(ddl).slice(0, 80)}`);
  await connection.run('BEGIN TRANSACTION');
  try {
    await connection.run(`DROP TABLE IF EXISTS ${CLUSTERED}`);
    await connection.run(`CREATE TABLE ${CLUSTERED}(${ddl.slice(prefix.length)}`);
    // Insertion order is kept (preserve_insertion_order is on by default), so ORDER BY is the layout.
    const inserted = await connection.runAndReadAll(
      `INSERT INTO ${CLUSTERED} SELECT * FROM ${RESULTS_TABLE} ORDER BY account_id, check_id, started_ms, id`,
    );
    await connection.run(`DROP TABLE ${RESULTS_TABLE}`);
    await connection.run(`ALTER TABLE ${CLUSTERED} RENAME TO ${RESULTS_TABLE}`);
    await connection.run('COMMIT');
    const count = inserted.getRowObjectsJS()[0]?.Count;
    return { rows: Number(count ?? 0) };
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
