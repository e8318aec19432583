import { ConfigError, createLogger, Lifecycle, tolerateClosedTargetRejections } from '#core';
import { version } from '../../api/src/version.ts';
import { loadAgentConfig, type AgentConfig } from './agent-config.ts';
import { startAgent } from './agent.ts';
import { createRunnerScripts } from './scripts.ts';

// The agent of a private location: `npm run start:agent` (node dist/agent.js). It needs only
// VIGIL_API_URL and VIGIL_AGENT_KEY, and outbound HTTP(S) to the API.
let config: AgentConfig;
try {
  config = loadAgentConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`agent: ${error.message}\n`);
  process.exit(1);
}
const log = createLogger({ level: config.LOG_LEVEL, name: 'agent' });
tolerateClosedTargetRejections(log);
const lifecycle = new Lifecycle(log);
const scripts = createRunnerScripts({
  runtimesDir: config.VIGIL_RUNTIMES_DIR,
  chromiumPath: config.CHROMIUM_PATH,
  logger: log,
  installRuntimes: config.VIGIL_RUNTIMES_INSTALL,
});
lifecycle.add('scripts', () => scripts.close());
const agent = startAgent({
  log,
  scripts: scripts.scripts,
  settings: {
    apiUrl: config.VIGIL_API_URL,
    key: config.VIGIL_AGENT_KEY,
    concurrency: config.JOB_CONCURRENCY,
    allowPrivate: !config.VIGIL_AGENT_ENFORCE_ADDRESS_POLICY,
    pollWaitMs: config.VIGIL_AGENT_POLL_WAIT_MS,
    version,
    chromiumPath: config.CHROMIUM_PATH,
    headlessShellPath: config.CHROMIUM_HEADLESS_SHELL_PATH,
  },
});
lifecycle.add('agent', () => agent.stop());
lifecycle.handleSignals();
// A refused key (revoked, or its location deleted) ends the process: restarting would not help.
void agent.stopped.then(async ({ reason }) => {
  if (reason === 'stopped') return;
  await lifecycle.stop();
  process.exit(2);
});
