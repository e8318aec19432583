import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { ValidationError, type Logger } from '#core';

/** A numbered schema change, applied once, in order, under an advisory lock. */
interface Migration {
  version: number;
  name: string;
  sql: (schema: string) => string[];
}

const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'events',
    sql: (s) => [
      // transaction_id is what makes the $all order safe to read while transactions commit out of
      // order: a subscriber only reads rows whose transaction is below the oldest one in flight.
      // json (not jsonb) keeps the payload's bytes and key order exactly as written.
      `CREATE TABLE IF NOT EXISTS ${s}.events (
         position       bigserial PRIMARY KEY,
         transaction_id xid8      NOT NULL DEFAULT pg_current_xact_id(),
         stream         text      NOT NULL,
         revision       integer   NOT NULL,
         id             text      NOT NULL,
         type           text      NOT NULL,
         data           json      NOT NULL,
         metadata       json      NOT NULL,
         CONSTRAINT events_stream_revision_key UNIQUE (stream, revision),
         CONSTRAINT events_id_key UNIQUE (id)
       )`,
      `CREATE INDEX IF NOT EXISTS events_transaction_id_idx ON ${s}.events (transaction_id)`,
    ],
  },
  {
    version: 2,
    name: 'store identity',
    sql: (s) => [
      `CREATE TABLE IF NOT EXISTS ${s}.store_identity (
         singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
         id         text        NOT NULL,
         created_at timestamptz NOT NULL DEFAULT now()
       )`,
      // Made once, with the store: a copy restored elsewhere keeps it, a new store gets a new one.
      `INSERT INTO ${s}.store_identity (id) VALUES ('${randomUUID()}') ON CONFLICT DO NOTHING`,
    ],
  },
];

/** A schema name safe to splice into SQL: a plain lower-case identifier. */
export function quoteSchema(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new ValidationError(`EVENTSTORE_SCHEMA: "${schema}" must be a lower-case identifier (a-z, 0-9, _)`);
  }
  return `"${schema}"`;
}

/**
 * Brings the schema up to date. Several processes may start at once: a transaction-scoped
 * advisory lock (keyed by the schema name) lets one migrate while the others wait.
 */
export async function migrate(pool: pg.Pool, schema: string, log?: Logger): Promise<void> {
  const s = quoteSchema(schema);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`vigil-eventstore-migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
         version    integer PRIMARY KEY,
         name       text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${s}.schema_migrations`);
    const applied = new Set(rows.map((row) => row.version));
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      for (const statement of migration.sql(s)) await client.query(statement);
      await client.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [
        migration.version,
        migration.name,
      ]);
      log?.info({ schema, version: migration.version, migration: migration.name }, 'event store migration applied');
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
