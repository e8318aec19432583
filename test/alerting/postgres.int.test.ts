import { afterAll } from 'vitest';
import { distributedEnv } from '#test-support';
import { dropPostgresSchemas, postgresEventStoreEnv } from '../platform/postgres-url.ts';
import { alertingSuite } from './flows.ts';

afterAll(dropPostgresSchemas);

alertingSuite('PostgreSQL events, Kafka and Redis', () => ({
  ...distributedEnv(),
  ...postgresEventStoreEnv('alerting'),
}));
