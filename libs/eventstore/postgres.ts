import pg from 'pg';
import { AppError, ConcurrencyError, ConflictError, InternalError, UnavailableError, type Logger } from '#core';
import { checkNewEvents, decodeStoredEvent, parseStoredJson } from './codec.ts';
import { checkExpected } from './expected.ts';
import { migrate, quoteSchema } from './postgres-schema.ts';
import type { AppendResult, EventStore, ExpectedRevision, NewEvent, RecordedEvent, SubscribeOptions } from './port.ts';

export interface PostgresEventStoreOptions {
  /** postgres://user:password@host:5432/database */
  connectionString: string;
  /** Schema holding the tables (default vigil), so several deployments or test runs share one server. */
  schema?: string;
  log?: Logger;
  /** A caught-up subscription re-reads this often even without a notification (a lost NOTIFY only delays). */
  pollIntervalMs?: number;
  /** Rows a subscription reads per query. */
  pageSize?: number;
  /** Connections in the pool. */
  poolSize?: number;
  /** Test hook: runs inside each append's transaction after its insert, just before COMMIT. */
  beforeCommit?: () => Promise<void>;
  /**
   * Test only: read $all by position alone, without the in-flight-transaction horizon. This is
   * the known-broken way (a subscriber can pass a position whose transaction commits later); it
   * exists so the ordering test can show the race is real.
   */
  unsafeReadByPositionOnly?: boolean;
}

interface EventRow {
  position: string;
  stream: string;
  revision: number;
  id: string;
  type: string;
  data: string;
  metadata: string;
}

const columns = 'position, stream, revision, id, type, data::text AS data, metadata::text AS metadata';
/** How often an append with expectedRevision 'any' retries after losing a revision race. */
const anyRetries = 20;

/**
 * Event store on PostgreSQL.
 *
 * Global order. A bigserial position alone is not safe to follow: transaction A may take position
 * 11, B position 12, and B commit first; a reader that then resumes after 12 skips 11 forever.
 * So every row records its transaction id (xid8), and a subscription reads only rows whose
 * transaction is older than the oldest transaction still in flight
 * (`transaction_id < pg_snapshot_xmin(pg_current_snapshot())`): those transactions are all
 * finished, so that set can no longer grow below its top. For that set to be a prefix of the
 * position order, a transaction's id and its positions are taken together under a short advisory
 * lock (released before COMMIT, so slow commits still overlap): a later transaction id then
 * always means later positions.
 *
 * Concurrency: UNIQUE (stream, revision) lets exactly one of two racing appends win, across any
 * number of connections and machines. Live subscriptions wake on LISTEN/NOTIFY and also poll.
 */
export async function createPostgresEventStore(options: PostgresEventStoreOptions): Promise<EventStore> {
  const { log } = options;
  const schema = options.schema ?? 'vigil';
  const s = quoteSchema(schema);
  const channel = `vigil_events_${schema}`;
  const appendLock = `vigil-eventstore-append:${schema}`;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const pageSize = options.pageSize ?? 500;
  const horizon = options.unsafeReadByPositionOnly
    ? ''
    : 'AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())';
  const sql = {
    currentRevision: `SELECT max(revision) AS revision FROM ${s}.events WHERE stream = $1`,
    insert: `INSERT INTO ${s}.events (stream, revision, id, type, data, metadata)
             SELECT $1, r, i, t, d::json, m::json
             FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[]) AS e(r, i, t, d, m)
             RETURNING position`,
    readStream: `SELECT ${columns} FROM ${s}.events WHERE stream = $1 AND revision >= $2 ORDER BY revision`,
    page: `SELECT ${columns} FROM ${s}.events WHERE position > $1 ${horizon} ORDER BY position LIMIT $2`,
    head: `SELECT coalesce(max(position), 0) AS head FROM ${s}.events`,
    identity: `SELECT id FROM ${s}.store_identity`,
  };

  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: 5_000,
    application_name: 'vigil-eventstore',
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', (error) => log?.warn({ err: error }, 'idle event-store connection failed'));

  try {
    await migrate(pool, schema, log);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw translate(error);
  }

  let closed = false;
  const closing = new AbortController();
  const waiters = new Set<() => void>();
  let listener: pg.Client | undefined;
  let listening: Promise<void> | undefined;

  function ensureOpen(): void {
    if (closed) throw new UnavailableError('The event store is closed');
  }

  function wakeSubscribers(): void {
    for (const wake of [...waiters]) wake();
  }

  /** One LISTEN connection per store; when it fails, subscriptions keep polling and it reconnects later. */
  function listen(): Promise<void> {
    if (listening || closed) return listening ?? Promise.resolve();
    const client = new pg.Client({
      connectionString: options.connectionString,
      application_name: `vigil-listen:${schema}`,
    });
    const drop = (error?: Error) => {
      if (listener !== client) return;
      listener = undefined;
      listening = undefined;
      if (!closed) log?.warn({ err: error }, 'event-store LISTEN connection lost; polling until it reconnects');
      client.end().catch(() => undefined);
    };
    client.on('notification', wakeSubscribers);
    client.on('error', drop);
    client.on('end', () => drop());
    listener = client;
    listening = client
      .connect()
      .then(() => client.query(`LISTEN "${channel}"`))
      .then(() => undefined)
      .catch((error: Error) => drop(error));
    return listening;
  }

  function waitForAppend(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
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

  async function query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
    ensureOpen();
    try {
      return (await pool.query<R>(text, values)).rows;
    } catch (error) {
      throw translate(error);
    }
  }

  async function appendOnce(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw translate(error, stream);
    }
    let locked = false;
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const current = (await client.query<{ revision: number | null }>(sql.currentRevision, [stream])).rows[0]
        ?.revision;
      checkExpected(stream, expected, current ?? -1);
      const first = (current ?? -1) + 1;
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [appendLock]);
      locked = true;
      const inserted = await client.query<{ position: string }>(sql.insert, [
        stream,
        events.map((_, i) => first + i),
        events.map((e) => e.id),
        events.map((e) => e.type),
        events.map((e) => JSON.stringify(e.data)),
        events.map((e) => JSON.stringify(e.metadata)),
      ]);
      await client.query('SELECT pg_advisory_unlock(hashtext($1)), pg_notify($2, $3)', [appendLock, channel, '']);
      locked = false;
      await options.beforeCommit?.();
      await client.query('COMMIT');
      const position = inserted.rows.reduce(
        (max, row) => (BigInt(row.position) > max ? BigInt(row.position) : max),
        0n,
      );
      return { nextRevision: first + events.length - 1, position };
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      // Session advisory locks outlive a rollback; a connection we cannot unlock is thrown away.
      if (locked && !broken) {
        await client
          .query('SELECT pg_advisory_unlock(hashtext($1))', [appendLock])
          .then(() => (locked = false))
          .catch((unlockError: Error) => (broken = unlockError));
      }
      throw translate(error, stream);
    } finally {
      client.release(broken ?? (locked ? new Error('advisory lock still held') : undefined));
    }
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
      void listen();
      const rows = await query<EventRow>(sql.page, [last.toString(), pageSize]);
      for (const row of rows) {
        if (stop.aborted) return;
        const event = decodeRow(row);
        last = event.position;
        yield event;
      }
      if (rows.length < pageSize && !stop.aborted) await waitForAppend(stop);
    }
  }

  return {
    async append(stream, events, expectedRevision) {
      ensureOpen();
      checkNewEvents(stream, events);
      for (let attempt = 1; ; attempt++) {
        try {
          return await appendOnce(stream, events, expectedRevision);
        } catch (error) {
          // With 'any' there is no expectation to break: a lost revision race just goes again.
          if (expectedRevision !== 'any' || !(error instanceof ConcurrencyError) || attempt >= anyRetries) throw error;
        }
      }
    },

    async readStream(stream, readOptions = {}) {
      const rows = await query<EventRow>(sql.readStream, [stream, readOptions.fromRevision ?? 0]);
      return rows.map(decodeRow);
    },

    subscribeToAll(subscribeOptions = {}) {
      ensureOpen();
      return subscribe(subscribeOptions);
    },

    async headPosition() {
      const rows = await query<{ head: string }>(sql.head);
      return BigInt(rows[0]?.head ?? 0);
    },

    async identity() {
      const rows = await query<{ id: string }>(sql.identity);
      const id = rows[0]?.id;
      if (!id) throw new InternalError(`The event store in schema ${schema} has no identity row`);
      return id;
    },

    async ping() {
      await query('SELECT 1');
    },

    async close() {
      if (closed) return;
      closed = true;
      closing.abort();
      wakeSubscribers();
      const client = listener;
      listener = undefined;
      await client?.end().catch(() => undefined);
      await pool.end().catch(() => undefined);
      log?.debug({ schema }, 'postgres event store closed');
    },
  };
}

const unavailableCodes = /^(08|53|57P|3D000|28)/;
const unavailableErrno = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

function translate(error: unknown, stream?: string): unknown {
  if (error instanceof AppError) return error;
  const e = error as Partial<pg.DatabaseError> & { code?: string; message?: string };
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code === '23505' && e.constraint === 'events_stream_revision_key') {
    return new ConcurrencyError(`Stream ${stream ?? '?'} was appended to concurrently`, {
      cause: error,
      details: { stream },
    });
  }
  if (code === '23505' && e.constraint === 'events_id_key') {
    return new ConflictError(`Event id already exists: ${e.detail ?? ''}`, { cause: error });
  }
  const message = e?.message ?? String(error);
  if (
    unavailableCodes.test(code) ||
    unavailableErrno.has(code) ||
    /Connection terminated|timeout exceeded when trying to connect|Client was closed|Cannot use a pool after calling end/i.test(
      message,
    )
  ) {
    return new UnavailableError(`PostgreSQL event store unavailable${code ? ` (${code})` : ''}: ${message}`, {
      cause: error,
    });
  }
  return new InternalError(`PostgreSQL event store error${code ? ` (${code})` : ''}: ${message}`, { cause: error });
}
