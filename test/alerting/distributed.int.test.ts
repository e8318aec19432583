import { distributedEnv } from '#test-support';
import { alertingSuite } from './flows.ts';

alertingSuite('Kafka and Redis', () => distributedEnv());
