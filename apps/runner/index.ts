export {
  startRunner,
  defaultSink,
  lastPingKey,
  type Runner,
  type RunnerDeps,
  type RunnerSettings,
} from './src/runner.ts';
export { startRunnerApp } from './src/app.ts';
export { runnerConfigSchema, runnerAppEnv, loadRunnerConfig, type RunnerConfig } from './src/config.ts';
