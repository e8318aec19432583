import { ClickHouseError, ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { ConfigError, InternalError, UnavailableError, isAppError, type AppError, type Logger } from '#core';
import type { CheckResult } from '#domain';
import { createClickHouseSelect, type ClickHouseSelect } from './clickhouse-select.ts';
import { CLICKHOUSE_MIGRATIONS_TABLE, clickHouseMigrations } from './clickhouse-schema.ts';
import { runMigrations, type Migration } from './migrations.ts';
import { coalesce } from './rollup/coalesce.ts';
import { createRollupMaintainer, type RolledRow, type RollupExecutor } from './rollup/maintain.ts';
import { DAILY_TABLE } from './rollup/daily.ts';
import { ROLLUP_TABLE } from './rollup/sql.ts';
import type { AnalyticsStore, ResultFilter } from './port.ts';
import { resultFilterSql } from './filter.ts';
import { RESULTS_TABLE, assertStorable, toResultRow, uniqueById } from './row.ts';
import { formatDateTime, sqlIdentifier, sqlNumber, sqlString } from './sql.ts';

export interface ClickHouseAnalyticsOptions {
  url: string;
  database: string;
  log: Logger;
  /** Per request; inserts of 10,000 rows take well under a second locally. */
  requestTimeoutMs?: number;
  /**
   * Another transport instead of HTTP to `url`. The tests run current ClickHouse in process this
   * way (chdb), through this same adapter code.
   */
  transport?: ClickHouseTransport;
  /** Epoch ms, for which hours are closed; tests move it. */
  clock?: () => number;
}

export type ClickHouseConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

export interface ClickHouseTransport {
  /** @clickhouse/client's transport, for writes and DDL: one per client, with the database that client works in (undefined: none). */
  connection(database: string | undefined): ClickHouseConnection;
  /** Reads in a database, as HTTP's skip the client (clickhouse-select.ts). */
  reads(database: string): ClickHouseSelect;
}

/** Below the 3 s keep-alive timeout of ClickHouse 18.16 (and the 10 s of current servers). */
const KEEP_ALIVE_IDLE_MS = 2_000;

// Server errors that pass with time (overload, merges catching up), as opposed to bad SQL.
const TRANSIENT_CODES = new Set([
  159, // TIMEOUT_EXCEEDED
  202, // TOO_MANY_SIMULTANEOUS_QUERIES
  203, // NO_FREE_CONNECTION
  209, // SOCKET_TIMEOUT
  210, // NETWORK_ERROR
  241, // MEMORY_LIMIT_EXCEEDED
  242, // TABLE_IS_READ_ONLY
  252, // TOO_MANY_PARTS
  319, // UNKNOWN_STATUS_OF_INSERT
]);

/**
 * ClickHouse through @clickhouse/client, checked against 18.16: it sends only settings 18.16
 * knows (none by default), compression stays off, and JSONEachRow both ways. 64-bit integers
 * come back unquoted so rows hold JS numbers.
 */
export function createClickHouseAnalyticsStore(options: ClickHouseAnalyticsOptions): AnalyticsStore {
  const database = options.database;
  sqlIdentifier(database); // refuses a name that would need quoting anywhere
  const log = options.log.child({ component: 'analytics', engine: 'clickhouse', database });
  const common = {
    url: options.url,
    request_timeout: options.requestTimeoutMs ?? 30_000,
    compression: { request: false, response: false },
    // ClickHouse 18.16 closes an idle keep-alive connection after 3 s (keep_alive_timeout). Drop
    // pooled sockets well before that, and check their age on reuse too: the idle timer cannot
    // fire while the event loop is busy (a large batch being built), and a socket reused after the
    // server closed it fails with EPIPE or ECONNRESET.
    keep_alive: { enabled: true, idle_socket_ttl: KEEP_ALIVE_IDLE_MS, eagerly_destroy_stale_sockets: true },
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    log: { level: ClickHouseLogLevel.OFF },
    application: 'vigil',
  } as const;
  // The database may not exist yet, and the server refuses any request naming a missing one,
  // so CREATE DATABASE goes through a client without it.
  let server: ClickHouseClient;
  let client: ClickHouseClient;
  // Reads skip the client (see clickhouse-select.ts).
  let reads: ClickHouseSelect;
  const { transport } = options;
  try {
    server = createClient({ ...common, connection: transport?.connection(undefined) });
    client = createClient({ ...common, database, connection: transport?.connection(database) });
    reads =
      transport?.reads(database) ??
      createClickHouseSelect({
        url: options.url,
        database,
        timeoutMs: common.request_timeout,
        keepAliveMs: KEEP_ALIVE_IDLE_MS,
      });
  } catch (error) {
    // The client checks the URL up front (protocol, shape).
    throw new ConfigError(`invalid ClickHouse URL: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }

  async function run<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw translate(error, operation, log);
    }
  }

  async function exec(sql: string, target: ClickHouseClient = client): Promise<void> {
    await run('command', () => target.command({ query: sql }));
  }

  async function select<T>(sql: string): Promise<T[]> {
    const query = sql.trim().replace(/;+$/, '');
    return run('query', () => reads.rows<T>(query));
  }

  const rollups: RollupExecutor = {
    dialect: 'clickhouse',
    source: `${RESULTS_TABLE} FINAL`,
    run: (sql) => exec(sql),
    rows: (sql) => select(sql),
    atomic: (work) => work(),
  };
  const maintainer = createRollupMaintainer(options.clock, (err, message) => log.warn({ err }, message));
  // Inserts that finish while a re-roll runs share the next one (ClickHouse has no transaction
  // to order them by, so this also keeps two re-rolls of one hour from running at once).
  const afterInsert = coalesce((rows: RolledRow[]) => maintainer.afterInsert(rollups, rows));

  const migrationTarget = {
    async applied(): Promise<number[]> {
      await exec(CLICKHOUSE_MIGRATIONS_TABLE);
      const rows = await select<{ version: number }>('SELECT DISTINCT version FROM schema_migrations');
      return rows.map((row) => Number(row.version));
    },
    async apply(migration: Migration): Promise<void> {
      for (const statement of migration.statements)
        await exec(statement).catch((error: unknown) => {
          // ADD COLUMN cannot say IF NOT EXISTS on 18.16: a column another process added first is done.
          const added = /^ALTER TABLE \S+ ADD COLUMN /.test(statement) && /already exists/i.test(chainText(error));
          if (!added) throw error;
        });
      const now = formatDateTime(new Date());
      await exec(
        `INSERT INTO schema_migrations (version, name, applied_at) VALUES (${sqlNumber(migration.version)}, ${sqlString(migration.name, 'clickhouse')}, ${sqlString(now, 'clickhouse')})`,
      );
    },
  };

  return {
    dialect: 'clickhouse',
    source: `${RESULTS_TABLE} FINAL`,

    async migrate() {
      await exec(`CREATE DATABASE IF NOT EXISTS ${sqlIdentifier(database)}`, server);
      await runMigrations(migrationTarget, clickHouseMigrations, log);
    },

    async insert(results: readonly CheckResult[]) {
      if (results.length === 0) return;
      assertStorable(results);
      const rows = uniqueById(results).map((result) => {
        const row = toResultRow(result);
        return { ...row, started_at: formatDateTime(row.started_at) };
      });
      await run('insert', () => client.insert({ table: RESULTS_TABLE, values: rows, format: 'JSONEachRow' }));
      await afterInsert(rows);
      log.debug({ rows: rows.length, received: results.length }, 'analytics rows inserted');
    },

    async countResults(filter: ResultFilter = {}) {
      const rows = await select<{ n: number }>(
        `SELECT count() AS n FROM ${RESULTS_TABLE} FINAL${resultFilterSql(filter, 'clickhouse')}`,
      );
      return Number(rows[0]?.n ?? 0);
    },

    query: select,

    rollups: {
      source: `${ROLLUP_TABLE} FINAL`,
      daily: `${DAILY_TABLE} FINAL`,
      watermarks: () => maintainer.watermarks(rollups),
      advance: () => maintainer.advance(rollups),
      rebuild: () => maintainer.rebuild(rollups),
    },

    async ping() {
      const result = await server.ping();
      if (!result.success) throw translate(result.error, 'ping', log);
    },

    async close() {
      await Promise.all([client.close(), server.close(), reads.close()]);
    },
  };
}

function translate(error: unknown, operation: string, log: Logger): AppError {
  if (isAppError(error)) return error;
  const code = serverErrorCode(error);
  if (code === undefined) {
    // No ClickHouse answer at all: refused, reset, timed out, DNS.
    const detail = error instanceof Error ? error.message : String(error);
    log.warn({ operation, err: error }, 'ClickHouse unreachable');
    return new UnavailableError(`ClickHouse is unreachable (${operation}): ${detail}`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  if (TRANSIENT_CODES.has(code)) {
    log.warn({ code, operation }, 'ClickHouse is overloaded');
    return new UnavailableError(`ClickHouse ${operation} failed, retry later: ${message}`, {
      cause: error,
      details: { code },
    });
  }
  // The server understood and refused: bad SQL or a schema mismatch, a bug, not an outage.
  return new InternalError(`ClickHouse ${operation} failed: ${message}`, { cause: error, details: { code } });
}

/**
 * The server's error code, when the server answered. The client parses only the current text
 * ("Code: 62. DB::Exception: …"); 18.16 writes "Code: 62, e.displayText() = DB::Exception: …",
 * which reaches us as a plain Error.
 */
function serverErrorCode(error: unknown): number | undefined {
  if (error instanceof ClickHouseError) return Number(error.code);
  // Another copy of the client's error class (chdb's transport loads its own): same shape, no instanceof.
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && error.constructor.name === 'ClickHouseError' && /^\d+$/.test(String(code)))
    return Number(code);
  const match = error instanceof Error ? /^Code: (\d+)[.,]/.exec(error.message) : null;
  return match ? Number(match[1]) : undefined;
}

/** The messages of an error and its causes, to recognise a server answer through our wrappers. */
function chainText(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++)
    parts.push(String((e as { message?: unknown }).message ?? e));
  return parts.join(' | ');
}
