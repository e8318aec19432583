import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { eventStoreContract } from './contract.ts';
import { createPostgresEventStore } from './postgres.ts';
import { postgresTestUrl, uniqueSchema } from './postgres-test-url.ts';

const url = postgresTestUrl();
const schemas: string[] = [];
const schema = (label: string) => {
  const name = uniqueSchema(label);
  schemas.push(name);
  return name;
};

afterAll(async () => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  for (const name of schemas) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  await client.end();
});

const contractSchema = schema('contract');
eventStoreContract('postgres', () => createPostgresEventStore({ connectionString: url, schema: contractSchema }));

describe('PostgreSQL event store', () => {
  it('migrates once when several processes start at once, and keeps one identity', async () => {
    const name = schema('migrate');
    const stores = await Promise.all(
      Array.from({ length: 4 }, () => createPostgresEventStore({ connectionString: url, schema: name })),
    );
    try {
      const identities = new Set(await Promise.all(stores.map((store) => store.identity())));
      expect(identities.size).toBe(1);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query(`SELECT version FROM "${name}".schema_migrations ORDER BY version`);
      await client.end();
      expect(rows.map((row) => row.version)).toEqual([1, 2]);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('gives two schemas on one server two identities', async () => {
    const a = await createPostgresEventStore({ connectionString: url, schema: schema('ida') });
    const b = await createPostgresEventStore({ connectionString: url, schema: schema('idb') });
    try {
      expect(await a.identity()).not.toBe(await b.identity());
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('refuses a schema name that is not a plain identifier', async () => {
    await expect(createPostgresEventStore({ connectionString: url, schema: 'x"; DROP' })).rejects.toThrow(
      /EVENTSTORE_SCHEMA/,
    );
  });

  it('answers UnavailableError when the server cannot be reached', async () => {
    await expect(
      createPostgresEventStore({ connectionString: 'postgres://postgres@127.0.0.1:1/postgres', schema: 'x' }),
    ).rejects.toMatchObject({ name: 'UnavailableError' });
  });
});
