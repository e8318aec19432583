import pg from 'pg';
import { services, uniqueSuffix } from '#test-support';

/** The PostgreSQL server of this test run (scripts/services.sh); a missing one fails the suite. */
export function postgresUrl(): string {
  return services().VIGIL_POSTGRES_URL;
}

const made: string[] = [];

/** A schema of its own for one Vigil, so suites sharing the server never see each other's events. */
export function postgresEventStoreEnv(label: string): { EVENTSTORE_URL: string; EVENTSTORE_SCHEMA: string } {
  const schema = `t_${label}_${uniqueSuffix()}`;
  made.push(schema);
  return { EVENTSTORE_URL: postgresUrl(), EVENTSTORE_SCHEMA: schema };
}

/** Drops the schemas postgresEventStoreEnv handed out (call from afterAll). */
export async function dropPostgresSchemas(): Promise<void> {
  if (made.length === 0) return;
  const client = new pg.Client({ connectionString: postgresUrl() });
  await client.connect();
  try {
    for (const schema of made.splice(0)) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
