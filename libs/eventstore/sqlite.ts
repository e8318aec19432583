import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { Sqlite, AppError, ConcurrencyError, ConflictError, InternalError, UnavailableError, type Logger } from '#core';
import { checkNewEvents, decodeStoredEvent, parseStoredJson } from './codec.ts';
import { checkExpected } from './expected.ts';
import type { AppendResult, EventStore, ExpectedRevision, NewEvent, RecordedEvent, SubscribeOptions } from './port.ts';

export interface SqliteEventStoreOptions {
  /** File path, or ':memory:' (one connection only, so no other process can share it). */
  path: string;
  log?: Logger;
  /** How often a caught-up subscription looks for appends made by other processes. */
  pollIntervalMs?: number;
  /** Rows a subscription reads per query, so a long catch-up never loads everything at once. */
  pageSize?: number;
  /** How long a write waits for another process's write lock before giving up (503). */
  busyTimeoutMs?: number;
}

interface EventRow {
  position: number;
  stream: string;
  revision: number;
  id: string;
  type: string;
  data: string;
  metadata: string;
}

const schema = `
  CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    stream   TEXT    NOT NULL,
    revision INTEGER NOT NULL,
    id       TEXT    NOT NULL UNIQUE,
    type     TEXT    NOT NULL,
    data     TEXT    NOT NULL,
    metadata TEXT    NOT NULL,
    UNIQUE (stream, revision)
  );
  CREATE TABLE IF NOT EXISTS store_identity (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    id        TEXT    NOT NULL
  )`;

const columns = 'position, stream, revision, id, type, data, metadata';

/**
 * Event store in one SQLite file. Several processes may share the file: writes serialize on
 * SQLite's write lock (BEGIN IMMEDIATE), and live subscriptions poll for other processes'
 * appends while waking at once for this process's own.
 *
 * Positions come from AUTOINCREMENT inside the write lock, so they are handed out in commit
 * order: once a reader sees position p, no event with a smaller position can appear later.
 * That is what lets a subscription resume with a plain `position > last`.
 */
export function createSqliteEventStore(options: SqliteEventStoreOptions): EventStore {
  const { path, log } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 50;
  const pageSize = options.pageSize ?? 500;
  const db = open(path, options.busyTimeoutMs ?? 5_000);

  const statements = {
    currentRevision: db.prepare<[string], { revision: number | null }>(
      'SELECT MAX(revision) AS revision FROM events WHERE stream = ?',
    ),
    insert: db.prepare<[string, number, string, string, string, string]>(
      'INSERT INTO events (stream, revision, id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    idExists: db.prepare<[string], { stream: string }>('SELECT stream FROM events WHERE id = ?'),
    readStream: db.prepare<[string, number], EventRow>(
      `SELECT ${columns} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision`,
    ),
    page: db.prepare<[bigint, number], EventRow>(
      `SELECT ${columns} FROM events WHERE position > ? ORDER BY position LIMIT ?`,
    ),
    head: db.prepare<[], { head: number | null }>('SELECT MAX(position) AS head FROM events'),
    identity: db.prepare<[], { id: string }>('SELECT id FROM store_identity'),
    ping: db.prepare<[], { ok: number }>('SELECT 1 AS ok'),
  };

  const appendInTransaction = db.transaction(
    (stream: string, events: NewEvent[], expected: ExpectedRevision): AppendResult => {
      const current = statements.currentRevision.get(stream)?.revision ?? -1;
      checkExpected(stream, expected, current);
      let position = 0n;
      let revision = current;
      for (const event of events) {
        revision += 1;
        const duplicate = statements.idExists.get(event.id);
        if (duplicate)
          throw new ConflictError(`Event id ${event.id} already exists (stream ${duplicate.stream})`, {
            details: { eventId: event.id },
          });
        const info = statements.insert.run(
          stream,
          revision,
          event.id,
          event.type,
          JSON.stringify(event.data),
          JSON.stringify(event.metadata),
        );
        position = BigInt(info.lastInsertRowid);
      }
      return { nextRevision: revision, position };
    },
  );

  let closed = false;
  /** Aborted by close(): ends every subscription of this instance. */
  const closing = new AbortController();
  /** Resolvers of subscriptions waiting for a local append. */
  const waiters = new Set<() => void>();

  function ensureOpen(): void {
    if (closed) throw new UnavailableError('The event store is closed');
  }

  function wakeSubscribers(): void {
    for (const wake of [...waiters]) wake();
  }

  /** Waits for a local append, the next poll tick, or a stop, whichever comes first. */
  function waitForAppend(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      // Every path removes the timer and both listeners, so rapid wake-ups never pile them up.
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, pollIntervalMs);
      waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  function decodeRow(row: EventRow): RecordedEvent {
    const where = { stream: row.stream, revision: row.revision, position: row.position };
    return decodeStoredEvent({
      id: row.id,
      type: row.type,
      data: parseStoredJson(row.data, 'data', where),
      metadata: parseStoredJson(row.metadata, 'metadata', where),
      stream: row.stream,
      revision: row.revision,
      position: BigInt(row.position),
    });
  }

  async function* subscribe(subscribeOptions: SubscribeOptions): AsyncGenerator<RecordedEvent> {
    const stop = subscribeOptions.signal ? AbortSignal.any([subscribeOptions.signal, closing.signal]) : closing.signal;
    let last = subscribeOptions.fromPosition ?? 0n;
    while (!stop.aborted) {
      const rows = run(() => statements.page.all(last, pageSize));
      for (const row of rows) {
        if (stop.aborted) return;
        const event = decodeRow(row);
        last = event.position;
        yield event;
      }
      // A full page means more may be waiting: read on without sleeping.
      if (rows.length < pageSize && !stop.aborted) await waitForAppend(stop);
    }
  }

  return {
    async append(stream, events, expectedRevision) {
      ensureOpen();
      checkNewEvents(stream, events);
      const result = run(() => appendInTransaction.immediate(stream, events, expectedRevision), stream);
      wakeSubscribers();
      return result;
    },

    async readStream(stream, readOptions = {}) {
      ensureOpen();
      const rows = run(() => statements.readStream.all(stream, readOptions.fromRevision ?? 0));
      return rows.map(decodeRow);
    },

    subscribeToAll(subscribeOptions = {}) {
      ensureOpen();
      return subscribe(subscribeOptions);
    },

    async headPosition() {
      ensureOpen();
      return BigInt(run(() => statements.head.get())?.head ?? 0);
    },

    async identity() {
      const row = run(() => statements.identity.get());
      if (!row) throw new InternalError(`The SQLite event store at ${path} has no identity row`);
      return row.id;
    },

    async ping() {
      ensureOpen();
      run(() => statements.ping.get());
    },

    async close() {
      if (closed) return;
      closed = true;
      closing.abort();
      wakeSubscribers();
      db.close();
      log?.debug({ path }, 'sqlite event store closed');
    },
  };

  /** Runs a driver call, turning SQLite errors into the project's own. */
  function run<T>(fn: () => T, stream?: string): T {
    ensureOpen();
    try {
      return fn();
    } catch (error) {
      throw translate(error, stream);
    }
  }
}

function open(path: string, busyTimeoutMs: number): Database.Database {
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Sqlite(path);
    // busy_timeout first: switching to WAL itself needs a lock another process may hold.
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
    db.pragma('journal_mode = WAL');
    // The event store is the source of truth: a commit must survive power loss, not just a crash.
    db.pragma('synchronous = FULL');
    db.exec(schema);
    // Made once, with the file: a copy of the file keeps it, a new file gets a new one.
    db.prepare('INSERT OR IGNORE INTO store_identity (singleton, id) VALUES (1, ?)').run(randomUUID());
    return db;
  } catch (error) {
    throw new UnavailableError(`Cannot open the SQLite event store at ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function translate(error: unknown, stream: string | undefined): unknown {
  if (error instanceof AppError) return error;
  if (!(error instanceof Sqlite.SqliteError))
    return new InternalError(`Event store failure: ${String(error)}`, { cause: error });
  const code = error.code;
  // BEGIN IMMEDIATE makes the revision check and the insert atomic, so this only fires when a
  // writer bypassed it; it still means another append won the race for this revision.
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' && error.message.includes('events.stream')) {
    return new ConcurrencyError(`Stream ${stream ?? '?'} was appended to concurrently`, {
      cause: error,
      details: { stream },
    });
  }
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' && error.message.includes('events.id')) {
    return new ConflictError('Event id already exists', { cause: error });
  }
  if (/^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL)/.test(code)) {
    return new UnavailableError(`SQLite event store unavailable (${code}): ${error.message}`, { cause: error });
  }
  return new InternalError(`SQLite event store error (${code}): ${error.message}`, { cause: error });
}
