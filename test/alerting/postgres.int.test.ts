import { afterAll } from 'vitest';
import { services, uniqueSuffix } from '#test-support';
import { dropPostgresSchemas, postgresEventStoreEnv } from '../platform/postgres-url.ts';
import { alertingSuite } from './flows.ts';

afterAll(dropPostgresSchemas);

alertingSuite('PostgreSQL events, Kafka and Redis', () => {
  const { REDIS_URL, KAFKA_BROKERS, CLICKHOUSE_URL } = services();
  const suffix = uniqueSuffix();
  return {
    REDIS_URL,
    KAFKA_BROKERS,
    CLICKHOUSE_URL,
    KAFKA_TOPIC_PREFIX: `t${suffix}.`,
    KAFKA_TOPIC_PARTITIONS: '2',
    CLICKHOUSE_DATABASE: `vigil_test_${suffix}`,
    ...postgresEventStoreEnv('alerting'),
  };
});
