import { startVigil } from '#test-vigil';
import { checksSuite } from './checks-suite.ts';
import { controlPlaneSuite } from './suite.ts';

controlPlaneSuite('embedded SQLite', () => startVigil());
checksSuite('embedded SQLite', () => startVigil());
