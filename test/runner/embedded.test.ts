import { runnerSuite } from './flows.ts';

runnerSuite('embedded adapters', () => ({}));
