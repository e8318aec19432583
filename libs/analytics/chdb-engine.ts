// Test and bench support only: chdb is installed on first use into .services/tools (scripts/npm-tools.ts),
// never by `npm install`, so nothing a server app imports may import this file.
import { requireTool } from '../../scripts/npm-tools.ts';
import type { Logger } from '#core';
import { createClickHouseAnalyticsStore, type ClickHouseConnection } from './clickhouse.ts';
import { READ_CONNECTIONS, READ_SETTINGS, parseRows, type ClickHouseSelect } from './clickhouse-select.ts';
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
  close(): Promise<void>;
}

/**
 * Reads straight from chdb's sessions, as reads over HTTP skip the client (clickhouse-select.ts):
 * through the client each statement also ran a `SET` for the client's settings and went through
 * its result stream, about 0.35 ms a statement. Settings go in the statement's own SETTINGS clause.
 *
 * One chdb connection runs its statements one after another, while connections on the same data
 * run side by side (chdb 3.4), as a server runs the requests of an HTTP pool. So reads open up to
 * READ_CONNECTIONS of them, one more whenever every open one is busy: a rollup read's two
 * statements then overlap as they do on a server, where on one connection they took their sum.
 */
export function chdbSelect(database: string): ClickHouseSelect {
  sqlIdentifier(database);
  const settings = Object.entries(READ_SETTINGS)
    .map(([name, value]) => `${name} = ${value}`)
    .join(', ');
  const sessions: { session: ChdbSession; busy: number }[] = [];
  const pick = () => {
    let least = sessions[0];
    for (const entry of sessions) if (least === undefined || entry.busy < least.busy) least = entry;
    if (least !== undefined && (least.busy === 0 || sessions.length >= READ_CONNECTIONS)) return least;
    const opened = { session: chdbConnection(undefined) as unknown as ChdbSession, busy: 0 };
    sessions.push(opened);
    return opened;
  };
  return {
    async rows<T>(sql: string): Promise<T[]> {
      const statement = `USE ${database}; ${sql} SETTINGS ${settings}`;
      const entry = pick();
      entry.busy++;
      try {
        const result = await entry.session.chdb.queryAsync(statement, { format: 'JSONEachRow' });
        return parseRows<T>(result.text());
      } finally {
        entry.busy--;
      }
    },
    async close() {
      await Promise.all(sessions.splice(0).map(({ session }) => session.close()));
    },
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
