import { services } from '#test-support';
import { startVigil } from '#test-vigil';
import { checksSuite } from './checks-suite.ts';
import { controlPlaneSuite } from './suite.ts';

controlPlaneSuite('Redis state store', () => startVigil({ env: { REDIS_URL: services().REDIS_URL } }));
checksSuite('Redis state store', () => startVigil({ env: { REDIS_URL: services().REDIS_URL } }));
