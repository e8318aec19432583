import { alertingSuite } from './flows.ts';

alertingSuite('embedded adapters', () => ({}));
