// Public surface of #probes: one run of a managed check (API, URL, TCP, DNS, browser), its v1
// result and each assertion's outcome. Scheduling and delivery belong to apps/runner.
export {
  runProbe,
  runWithRetries,
  backoffSeconds,
  createProber,
  attemptTimeoutCap,
  type ProberOptions,
} from './run.ts';
export { isScriptDefinition } from './script-probe.ts';
export { runnableOf } from './definition.ts';
export { createBrowserPool, CHROMIUM_ARGS, type BrowserPoolOptions, type ManagedBrowserPool } from './browser-pool.ts';
export { evaluateAssertions, describeAssertion, type Observed } from './assertions.ts';
export { substitute, createScrubber, SCRUBBED } from './secrets.ts';
export { ALLOW_PRIVATE_HINT, AddressRefused, resolveGuarded } from './address.ts';
export { RESPONSE_BODY_CAP } from './http-probe.ts';
export { TCP_REPLY_CAP, TCP_REPLY_IDLE_MS } from './tcp-probe.ts';
export type {
  RunnableDefinition,
  RunnableCheckType,
  ProbeContext,
  AssertionOutcome,
  ProbeOutcome,
  BrowserPool,
  BrowserRunOptions,
  Prober,
  Sleep,
  ScriptDefinition,
  ScriptRunner,
  ScriptRunRequest,
  ScriptRunOutcome,
  ScriptRunStep,
} from './types.ts';
