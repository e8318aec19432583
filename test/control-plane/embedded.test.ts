import { startVigil } from '#test-vigil';
import { controlPlaneSuite } from './suite.ts';

controlPlaneSuite('embedded SQLite', () => startVigil());
