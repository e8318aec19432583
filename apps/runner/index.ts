export {
  startRunner,
  defaultSink,
  lastPingKey,
  type Runner,
  type RunnerDeps,
  type RunnerSettings,
} from './src/runner.ts';
export { startRunnerApp } from './src/app.ts';
export { createRunnerScripts, type RunnerScripts } from './src/scripts.ts';
export { runnerConfigSchema, runnerAppEnv, loadRunnerConfig, type RunnerConfig } from './src/config.ts';
export { startAgent, type Agent, type AgentSettings, type Lease } from './src/agent.ts';
export { agentConfigSchema, loadAgentConfig, type AgentConfig } from './src/agent-config.ts';
