import { services, uniqueSuffix } from '#test-support';
import { runnerSuite } from './flows.ts';

runnerSuite('Kafka, Redis and ClickHouse', () => {
  const { REDIS_URL, KAFKA_BROKERS, CLICKHOUSE_URL } = services();
  const suffix = uniqueSuffix();
  return {
    REDIS_URL,
    KAFKA_BROKERS,
    CLICKHOUSE_URL,
    KAFKA_TOPIC_PREFIX: `t${suffix}.`,
    KAFKA_TOPIC_PARTITIONS: '2',
    CLICKHOUSE_DATABASE: `vigil_test_${suffix}`,
  };
});
