export { startProjector, CONTROL_PLANE } from './src/projector.ts';
