import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DuckDBInstance, JSDuckDBValueConverter, type DuckDBConnection } from '@duckdb/node-api';
import { InternalError, UnavailableError, isAppError, type AppError, type Logger } from '#core';
import type { CheckResult } from '#domain';
import { dropStaging, insertResultRows, insertTarget, type InsertTarget } from './duckdb-insert.ts';
import { clusterResults } from './duckdb-cluster.ts';
import { DUCKDB_MIGRATIONS_TABLE, duckDbMigrations } from './duckdb-schema.ts';
import { resultFilterSql } from './filter.ts';
import { runMigrations, type Migration } from './migrations.ts';
import { coalesce } from './rollup/coalesce.ts';
import { createRollupMaintainer, type RolledRow, type RollupExecutor } from './rollup/maintain.ts';
import { DAILY_TABLE } from './rollup/daily.ts';
import { ROLLUP_TABLE } from './rollup/sql.ts';
import type { AnalyticsStore, ResultFilter } from './port.ts';
import { RESULTS_TABLE, assertStorable, toResultRow, uniqueById } from './row.ts';
import { formatDateTime, sqlNumber, sqlString } from './sql.ts';

export interface DuckDbAnalyticsOptions {
  /** A file path, or ':memory:'. */
  path: string;
  log: Logger;
  /** Epoch ms, for which hours are closed; tests move it. */
  clock?: () => number;
}

interface Opened {
  instance: DuckDBInstance;
  connection: DuckDBConnection;
}

const DATABASE = 'analytics';
/**
 * Rows per row group, against DuckDB's 122,880. A one-check read of a clustered table (see
 * duckdb-cluster.ts) scans the whole row group its rows are in, filtering check_id on every row;
 * a smaller group is fewer rows filtered for the same answer. 62 checks x 4,000 runs and a 1M-run
 * check, interleaved (load 0.9-1.6): one check 1.88 -> 1.69 ms p50, a busy check's day of raw
 * edges 3.2 -> 2.9 ms, the busy check's whole 1M runs 54 -> 51 ms; 8,192 gave no more.
 */
const ROW_GROUP_SIZE = 16_384;

/**
 * DuckDB in one file. One connection, and every call runs after the previous one finished: the
 * engine allows one writer, and a queue keeps a reader from seeing half a batch's raw rows. A batch is
 * appended straight to the table in a transaction, or, when an id is already stored, staged and
 * moved over with INSERT OR IGNORE (duckdb-insert.ts): the primary key on id makes it "exactly once".
 */
export function createDuckDbAnalyticsStore(options: DuckDbAnalyticsOptions): AnalyticsStore {
  const log = options.log.child({ component: 'analytics', engine: 'duckdb' });
  let opened: Promise<Opened> | undefined;
  let tail: Promise<unknown> = Promise.resolve();
  let closed = false;
  let target: InsertTarget | undefined;

  async function open(): Promise<Opened> {
    if (options.path === ':memory:') {
      const instance = await DuckDBInstance.create(':memory:');
      return { instance, connection: await instance.connect() };
    }
    await mkdir(dirname(options.path), { recursive: true });
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      // The row group size is an ATTACH option only, and is not kept in the file: every open sets it.
      await connection.run(
        `ATTACH ${sqlString(options.path, 'duckdb')} AS ${DATABASE} (ROW_GROUP_SIZE ${ROW_GROUP_SIZE})`,
      );
      await connection.run(`USE ${DATABASE}`);
    } catch (error) {
      connection.closeSync();
      instance.closeSync();
      throw error;
    }
    return { instance, connection };
  }

  /** Runs work on the connection after everything queued before it. */
  function serial<T>(operation: string, work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    const next = tail.then(async () => {
      if (closed) throw new UnavailableError('the DuckDB analytics store is closed');
      try {
        opened ??= open();
        const { connection } = await opened.catch((error: unknown) => {
          opened = undefined;
          throw error;
        });
        return await work(connection);
      } catch (error) {
        throw translate(error, operation, log);
      }
    });
    tail = next.catch(() => undefined);
    return next;
  }

  /**
   * A query's rows as plain objects. `run` materialises the result on DuckDB's side, so its chunks
   * are read synchronously here; runAndReadAll fetched each chunk, and the end, with a thread-pool
   * round trip of its own (two for a one-row answer: 1.18 -> 1.07 ms p50 for a one-check read,
   * interleaved, load 1.6).
   */
  async function rows<T>(connection: DuckDBConnection, sql: string): Promise<T[]> {
    const result = await connection.run(sql);
    const names = result.deduplicatedColumnNames();
    const found: T[] = [];
    for (let index = 0; index < result.chunkCount; index++) {
      const chunk = result.getChunk(index);
      for (let row = 0; row < chunk.rowCount; row++) {
        const object: Record<string, unknown> = {};
        chunk.visitRowValues(row, (value, _row, column, type) => {
          object[names[column]!] = plain(JSDuckDBValueConverter(value, type, JSDuckDBValueConverter));
        });
        found.push(object as T);
      }
    }
    return found;
  }

  const maintainer = createRollupMaintainer(options.clock, (err, message) => log.warn({ err }, message));
  // Re-rolls of batches stored while one runs share the next run (a backfill's batches then cost
  // one daily re-derive per group, not per batch); each insert still answers after its own.
  const afterInsert = coalesce((rows: RolledRow[]) =>
    serial('rollup', (connection) => maintainer.afterInsert(rollupsOn(connection), rows)),
  );
  /** Rollup statements on the connection the caller holds (inside serial). */
  const rollupsOn = (connection: DuckDBConnection): RollupExecutor => ({
    dialect: 'duckdb',
    source: RESULTS_TABLE,
    run: async (sql) => {
      await connection.run(sql);
    },
    rows: (sql) => rows(connection, sql),
    async atomic(work) {
      await connection.run('BEGIN TRANSACTION');
      try {
        const result = await work();
        await connection.run('COMMIT');
        return result;
      } catch (error) {
        await connection.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    },
  });

  const migrationTarget = (connection: DuckDBConnection) => ({
    async applied(): Promise<number[]> {
      await connection.run(DUCKDB_MIGRATIONS_TABLE);
      const found = await rows<{ version: number }>(connection, 'SELECT version FROM schema_migrations');
      return found.map((row) => row.version);
    },
    async apply(migration: Migration): Promise<void> {
      await connection.run('BEGIN TRANSACTION');
      try {
        for (const statement of migration.statements) await connection.run(statement);
        const now = sqlString(formatDateTime(new Date()), 'duckdb');
        await connection.run(
          `INSERT OR IGNORE INTO schema_migrations VALUES (${sqlNumber(migration.version)}, ${sqlString(migration.name, 'duckdb')}, ${now})`,
        );
        await connection.run('COMMIT');
      } catch (error) {
        await connection.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    },
  });

  return {
    dialect: 'duckdb',
    source: RESULTS_TABLE,

    migrate() {
      return serial('migrate', async (connection) => {
        await runMigrations(migrationTarget(connection), duckDbMigrations, log);
        // The column order and the staging table copy the table's shape, which a migration may have changed.
        await dropStaging(connection);
        target = undefined;
      });
    },

    async insert(results: readonly CheckResult[]) {
      if (results.length === 0) return;
      assertStorable(results);
      const batch = uniqueById(results).map(toResultRow);
      await serial('insert', async (connection) => {
        target ??= await insertTarget(connection);
        const path = await insertResultRows(connection, target, batch);
        log.debug({ rows: batch.length, received: results.length, path }, 'analytics rows inserted');
      });
      await afterInsert(batch);
    },

    async countResults(filter: ResultFilter = {}) {
      const where = resultFilterSql(filter, 'duckdb');
      return serial('count', async (connection) => {
        const found = await rows<{ n: number }>(connection, `SELECT count(*) AS n FROM ${RESULTS_TABLE}${where}`);
        return found[0]?.n ?? 0;
      });
    },

    query<T>(sql: string) {
      return serial('query', (connection) => rows<T>(connection, sql));
    },

    cluster: () => serial('cluster', clusterResults),

    rollups: {
      source: ROLLUP_TABLE,
      daily: DAILY_TABLE,
      watermarks: () => serial('rollup', (connection) => maintainer.watermarks(rollupsOn(connection))),
      advance: () => serial('rollup', (connection) => maintainer.advance(rollupsOn(connection))),
      rebuild: () => serial('rollup', (connection) => maintainer.rebuild(rollupsOn(connection))),
    },

    ping() {
      return serial('ping', async (connection) => {
        await connection.run('SELECT 1');
      });
    },

    async close() {
      await tail;
      closed = true;
      const current = opened;
      opened = undefined;
      if (current === undefined) return;
      const { instance, connection } = await current.catch(() => ({ instance: undefined, connection: undefined }));
      connection?.closeSync();
      instance?.closeSync();
    },
  };
}

/** Converts DuckDB's JS values to what ClickHouse's JSON gives: numbers, strings, arrays. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value instanceof Date) return formatTimestamp(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, plain(inner)]));
  }
  return value;
}

function formatTimestamp(date: Date): string {
  const ms = date.getUTCMilliseconds();
  return ms === 0 ? formatDateTime(date) : `${formatDateTime(date)}.${String(ms).padStart(3, '0')}`;
}

function translate(error: unknown, operation: string, log: Logger): AppError {
  if (isAppError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  // Disk and lock problems pass (a full disk is freed, a second process exits); SQL errors do not.
  if (/^(IO|Connection|Interrupt|Out of Memory) Error|lock on file|No space left/i.test(message)) {
    log.warn({ operation, err: error }, 'DuckDB unavailable');
    return new UnavailableError(`DuckDB analytics store unavailable (${operation}): ${message}`, { cause: error });
  }
  return new InternalError(`DuckDB ${operation} failed: ${message}`, { cause: error });
}
