export { startProjector, CONTROL_PLANE } from './src/projector.ts';
export { rebuildReadModels } from './src/rebuild.ts';
export { projectorConfigSchema } from './src/config.ts';
