import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The SQLite driver of the embedded adapters. better-sqlite3 13 is built on Node-API, ships its
 * binaries in the package (no compiler, no download at install) and is the one that works on Node
 * 24: 12.x compiled against Node 24.19+ headers aborts when a statement is collected
 * (`RemoveEnvironmentCleanupHook: (env) != nullptr`). 13 needs Node 22 and crashes on Node 20, so
 * Node 20 keeps 12. Both are optional dependencies, and npm skips the one whose engines do not
 * match, so an install on any of the three lines prints no engine warning.
 */
export type SqliteDriver = typeof BetterSqlite3;

const require = createRequire(import.meta.url);
const candidates =
  Number(process.versions.node.split('.')[0]) >= 22 ? ['better-sqlite3-napi', 'better-sqlite3'] : ['better-sqlite3'];

function load(): { driver: SqliteDriver; path: string } {
  const failures: string[] = [];
  for (const name of candidates) {
    try {
      const path = require.resolve(name);
      return { driver: require(path) as SqliteDriver, path };
    } catch (error) {
      failures.push(`${name}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }
  throw new Error(
    `No SQLite driver loads on Node ${process.version} (run npm install with this Node): ${failures.join('; ')}`,
  );
}

const loaded = load();
/** The driver's Database class (better-sqlite3's API). */
export const Sqlite: SqliteDriver = loaded.driver;
/** The driver's entry file, for worker threads that load it themselves. */
export const sqliteDriverPath: string = loaded.path;
