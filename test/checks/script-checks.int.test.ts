import { distributedEnv } from '#test-support';
import { scriptChecksSuite } from './script-flows.ts';

scriptChecksSuite('Kafka, Redis and ClickHouse', () => distributedEnv());
