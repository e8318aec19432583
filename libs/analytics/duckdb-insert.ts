import {
  DuckDBDataChunkWriter,
  DuckDBUUIDType,
  DuckDBUUIDValue,
  JSToDuckDBValueConverter,
  type DuckDBConnection,
  type JS,
  type ToDuckDBValueConverter,
} from '@duckdb/node-api';
import { InternalError } from '#core';
import { RESULTS_TABLE, RESULT_COLUMNS, type ResultRow } from './row.ts';

const STAGING = 'check_results_staging';
const STAGING_TABLE = `temp.main.${STAGING}`;

/** Column order of the results table (and of its staging copy), read once per connection and schema. */
export interface InsertTarget {
  columns: (keyof ResultRow)[];
  staging: boolean;
}

/** Which way a batch went in: appended straight to the table, or staged and moved with INSERT OR IGNORE. */
export type InsertPath = 'direct' | 'staged';

/**
 * Stores a batch of distinct rows once per id. The common case (no id already stored) appends
 * straight to the table inside a transaction: the primary key refuses a stored id, which fails
 * the whole append, and the transaction is rolled back, so nothing of the batch is kept. Only
 * then does the batch take the slow path: a temporary staging table and INSERT OR IGNORE. The
 * direct path saves the staging copy and the second pass over the rows (profile of the embedded
 * ingest: the staging append and the INSERT … SELECT were a third of the insert's CPU).
 * `direct: false` forces the staged path (for the differential test and after a conflict).
 */
export async function insertResultRows(
  connection: DuckDBConnection,
  target: InsertTarget,
  batch: readonly ResultRow[],
  options: { direct?: boolean } = {},
): Promise<InsertPath> {
  if (options.direct !== false) {
    await connection.run('BEGIN TRANSACTION');
    try {
      await appendRows(connection, RESULTS_TABLE, 'main', undefined, target.columns, batch);
      await connection.run('COMMIT');
      return 'direct';
    } catch (error) {
      await connection.run('ROLLBACK').catch(() => undefined);
      if (!isDuplicateKey(error)) throw error;
    }
  }
  if (!target.staging) {
    await connection.run(`CREATE OR REPLACE TEMP TABLE ${STAGING} AS SELECT * FROM ${RESULTS_TABLE} LIMIT 0`);
    target.staging = true;
  }
  // Left over only when a previous insert failed half-way.
  await connection.run(`DELETE FROM ${STAGING_TABLE}`);
  await appendRows(connection, STAGING, 'main', 'temp', target.columns, batch);
  await connection.run(`INSERT OR IGNORE INTO ${RESULTS_TABLE} SELECT * FROM ${STAGING_TABLE}`);
  await connection.run(`DELETE FROM ${STAGING_TABLE}`);
  return 'staged';
}

/** Reads the table's column order and checks the row mapping covers every column. */
export async function insertTarget(connection: DuckDBConnection): Promise<InsertTarget> {
  const shape = await connection.runAndReadAll(`SELECT * FROM ${RESULTS_TABLE} LIMIT 0`);
  const columns = shape.columnNames() as (keyof ResultRow)[];
  const missing = columns.filter((name) => !(RESULT_COLUMNS as readonly string[]).includes(name));
  if (missing.length > 0)
    throw new InternalError(`analytics rows lack columns ${missing.join(', ')}: the row mapping is behind the schema`);
  return { columns, staging: false };
}

/** Drops the staging table, whose shape copies the table's (a migration may change it). */
export async function dropStaging(connection: DuckDBConnection): Promise<void> {
  await connection.run(`DROP TABLE IF EXISTS ${STAGING_TABLE}`);
}

function isDuplicateKey(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /duplicate key .* violates primary key constraint/i.test(message);
}

/**
 * The driver's converter, except that a UUID already converted passes through: account and check
 * ids repeat across a batch (one account, a few hundred checks), and parsing each into a 128-bit
 * value was the appender's largest JS cost after the value walk itself.
 */
const converter: ToDuckDBValueConverter<JS> = (value, type, self) =>
  value instanceof DuckDBUUIDValue ? value : JSToDuckDBValueConverter(value, type, self);

async function appendRows(
  connection: DuckDBConnection,
  table: string,
  schema: string,
  catalog: string | undefined,
  columns: readonly (keyof ResultRow)[],
  batch: readonly ResultRow[],
): Promise<void> {
  const appender = await connection.createAppender(table, schema, catalog);
  try {
    // Whole data chunks, not value by value: about ten times faster for 10,000 rows.
    const writer = DuckDBDataChunkWriter.forAppender<JS>(appender, { converter });
    const repeated = new Map<string, DuckDBUUIDValue>();
    const uuid = (id: string) => {
      let value = repeated.get(id);
      if (value === undefined) {
        value = JSToDuckDBValueConverter(id, DuckDBUUIDType.instance, converter) as DuckDBUUIDValue;
        repeated.set(id, value);
      }
      return value;
    };
    for (const row of batch)
      writer.appendRow(
        columns.map((name) => (name === 'account_id' || name === 'check_id' ? uuid(row[name]) : row[name])) as JS[],
      );
    writer.flush();
    appender.flushSync();
  } catch (error) {
    // Closing flushes what is buffered, which fails again in the aborted transaction and would
    // hide the first error (a duplicate key is what sends the batch to the staged path).
    try {
      appender.clear();
      appender.closeSync();
    } catch {
      // the first error is the one that matters
    }
    throw error;
  }
  appender.closeSync();
}
