// Public surface of #sandbox: runs a user's script in a fresh bubblewrap sandbox per run, with egress
// only through the runner's policy proxy. API as agreed with the lead; additions (all optional):
// SandboxSpec.diskBytes / maxProcesses / maxOpenFiles, createSandbox({ trustedCa, stateDir }), and
// /work is a size-capped copy of workDir whose regular files are copied back after the run.
export { createSandbox } from './sandbox.ts';
export { SandboxUnavailableError } from './errors.ts';
export { createEgressProxy, EGRESS_MAX_BYTES, EGRESS_MAX_CONNECTIONS, type EgressProxy } from './proxy.ts';
export {
  RUNTIME_NODE,
  EGRESS_PORT,
  SANDBOX_UID,
  type Sandbox,
  type SandboxSpec,
  type SandboxOutcome,
  type SandboxOptions,
  type ProbeResult,
} from './types.ts';
