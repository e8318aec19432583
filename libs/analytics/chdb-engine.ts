// Test and bench support only: chdb is installed on first use into .services/tools (scripts/npm-tools.ts),
// never by `npm install`, so nothing a server app imports may import this file.
import { requireTool } from '../../scripts/npm-tools.ts';
import type { Logger } from '#core';
import { createClickHouseAnalyticsStore, type ClickHouseConnection } from './clickhouse.ts';
import { READ_SETTINGS, parseRows, type ClickHouseSelect } from './clickhouse-select.ts';
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
      return (params: { query: string }) =>
        (target[property as Method] as (p: unknown) => unknown).call(target, {
          ...params,
          query: `USE ${database}; ${params.query}`,
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
  const settings = Object.entries(READ_SETTINGS)
    .map(([name, value]) => `${name} = ${value}`)
    .join(', ');
  const connection = chdbConnection(undefined) as unknown as ChdbSession & { close(): Promise<void> };
  return {
    async rows<T>(sql: string): Promise<T[]> {
      const statement = `USE ${database}; ${sql} SETTINGS ${settings}`;
      const result = await connection.chdb.queryAsync(statement, { format: 'JSONEachRow' });
      return parseRows<T>(result.text());
    },
    close: () => connection.close(),
  };
}

/**
 * The ClickHouse adapter, unchanged, on ClickHouse 26.x in process. Reads carry `readonly` in their
 * own SETTINGS clause: chdb applies settings as session-wide SETs, and a read-only session cannot
 * be made writable again.
 */
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
    transport: { connection: chdbConnection, reads: chdbSelect },
  });
}

/** The engine's version, for the README's "verified against" table. */
export async function chdbVersion(store: AnalyticsStore): Promise<string> {
  const rows = await store.query<{ v: string }>('SELECT version() AS v');
  return rows[0]?.v ?? 'unknown';
}
