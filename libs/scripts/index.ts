// Public surface of #scripts: one MULTI_STEP or PLAYWRIGHT script run by its runtime's own
// Playwright Test inside the sandbox, with its steps, logs, requests and page metrics.
export { createScriptRunner, DEFAULT_CHROMIUM, MAX_TIMEOUT_MS, MEMORY_BYTES } from './runner.ts';
export { SCRIPT_MAX_BYTES, FILES_MAX_BYTES, CHROMIUM_SCRIPT_ARGS } from './prepare.ts';
export { LOG_CAP, CAP as REQUEST_FIELD_CAP } from './outcome.ts';
export type {
  ScriptFile,
  ScriptRunRequest,
  ScriptStep,
  ScriptRequest,
  ScriptRequestTimings,
  ScriptPage,
  ScriptRunOutcome,
  ScriptRunner,
  ScriptRunnerOptions,
} from './types.ts';
