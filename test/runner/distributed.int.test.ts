import { distributedEnv } from '#test-support';
import { runnerSuite } from './flows.ts';

runnerSuite('Kafka, Redis and ClickHouse', () => distributedEnv());
