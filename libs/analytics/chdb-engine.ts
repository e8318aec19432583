// Test and bench support only: chdb is installed on first use into .services/tools (scripts/npm-tools.ts),
// never by `npm install`, so nothing a server app imports may import this file.
import { requireTool } from '../../scripts/npm-tools.ts';
import type { Logger } from '#core';
import { createClickHouseAnalyticsStore, type ClickHouseConnection } from './clickhouse.ts';
import { parseRows, type ClickHouseSelect } from './clickhouse-select.ts';
import type { AnalyticsStore } from './port.ts';
import { sqlIdentifier } from './sql.ts';

type Method = 'query' | 'command' | 'exec' | 'insert';
const statements = new Set<string | symbol>(['query', 'command', 'exec', 'insert']);

/**
 * A chdb (ClickHouse in process) transport for @clickhouse/client. chdb has one session per
 * process and ignores the client's `database`, so each statement of a database-bound client
 * runs as `USE <database>; <statement>` in the same call. ':memory:' sessions are shared and
 * reference-counted, so every store of a test process sees one engine.
 */
export function chdbConnection(database: string | undefined): ClickHouseConnection {
  const { createChdbConnection } = requireTool<{ createChdbConnection(options: { path: string }): unknown }>(
    'chdb',
    '/connection',
  );
  const inner = createChdbConnection({ path: ':memory:' }) as ClickHouseConnection;
  if (database === undefined) return inner;
  sqlIdentifier(database);
  return new Proxy(inner, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      if (!statements.has(property)) return value.bind(target);
      return (params: { query: string; clickhouse_settings?: Record<string, unknown> }) =>
        (target[property as Method] as (p: unknown) => unknown).call(target, {
          ...withQuerySettings(params),
          query: `USE ${database}; ${withQuerySettings(params).query}`,
        });
    },
  });
}

interface ChdbSession {
  chdb: { queryAsync(sql: string, options: { format: string }): Promise<{ text(): string }> };
}

/**
 * Reads straight from chdb's session, as reads over HTTP skip the client (clickhouse-select.ts):
 * through the client each statement also ran a `SET` for the client's settings and went through
 * its result stream, about 0.35 ms a statement. Settings go in the statement's own SETTINGS clause.
 */
export function chdbSelect(database: string): ClickHouseSelect {
  sqlIdentifier(database);
  const connection = chdbConnection(undefined) as unknown as ChdbSession & { close(): Promise<void> };
  return {
    async rows<T>(sql: string): Promise<T[]> {
      const statement = `USE ${database}; ${sql} SETTINGS readonly = 2, output_format_json_quote_64bit_integers = 0`;
      const result = await connection.chdb.queryAsync(statement, { format: 'JSONEachRow' });
      return parseRows<T>(result.text());
    },
    close: () => connection.close(),
  };
}

/**
 * chdb applies clickhouse_settings as session-wide SETs, where HTTP scopes them to one request.
 * `readonly` must stay per query (once a session is read-only it cannot be made writable again),
 * so it moves into the statement's own SETTINGS clause, before the FORMAT the client appended.
 */
function withQuerySettings<P extends { query: string; clickhouse_settings?: Record<string, unknown> }>(params: P): P {
  const { readonly, ...rest } = params.clickhouse_settings ?? {};
  if (readonly === undefined) return params;
  const clause = ` SETTINGS readonly = ${Number(readonly)}`;
  const format = /\nFORMAT \w+\s*$/.exec(params.query);
  const query = format
    ? params.query.slice(0, format.index) + clause + params.query.slice(format.index)
    : params.query + clause;
  return { ...params, query, clickhouse_settings: rest };
}

/** The ClickHouse adapter, unchanged, on ClickHouse 26.x in process. */
export function createChdbAnalyticsStore(options: {
  database: string;
  log: Logger;
  clock?: () => number;
}): AnalyticsStore {
  return createClickHouseAnalyticsStore({
    ...(options.clock ? { clock: options.clock } : {}),
    url: 'http://chdb.invalid:8123',
    database: options.database,
    log: options.log,
    connection: chdbConnection,
    reads: chdbSelect,
  });
}

/** The engine's version, for the README's "verified against" table. */
export async function chdbVersion(store: AnalyticsStore): Promise<string> {
  const rows = await store.query<{ v: string }>('SELECT version() AS v');
  return rows[0]?.v ?? 'unknown';
}
