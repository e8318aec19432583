import { scriptChecksSuite } from './script-flows.ts';

scriptChecksSuite('embedded adapters', () => ({}));
