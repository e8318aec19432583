export { startStandalone, type RunningStandalone } from './src/standalone.ts';
export { loadStandaloneConfig, standaloneConfigSchema, type StandaloneConfig } from './src/config.ts';
