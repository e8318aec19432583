import { afterAll } from 'vitest';
import { services } from '#test-support';
import { startVigil } from '#test-vigil';
import { dropPostgresSchemas, postgresEventStoreEnv } from '../platform/postgres-url.ts';
import { checksSuite } from './checks-suite.ts';
import { controlPlaneSuite } from './suite.ts';

afterAll(dropPostgresSchemas);

const start = () => startVigil({ env: { REDIS_URL: services().REDIS_URL, ...postgresEventStoreEnv('control_plane') } });
controlPlaneSuite('PostgreSQL event store, Redis state store', start);
checksSuite('PostgreSQL event store, Redis state store', start);
