// Public surface of #sandbox: runs a user's script in a fresh bubblewrap sandbox per run, with egress
// only through the runner's policy proxy.
//
// Deviations from the interface agreed with the lead (additive, but for one removal: /work is no
// longer copied back whole):
// - SandboxSpec gains optional diskBytes (cap of /tmp, /dev/shm and /work each, and RLIMIT_FSIZE;
//   default 256 MiB), maxProcesses (pids cgroup, default 256) and maxOpenFiles (default 4096).
// - /work is not the caller's workDir itself: it is a size-capped tmpfs holding a copy of workDir.
//   After the run only what the caller names comes out of it (SandboxSpec gains readFiles, read into
//   SandboxOutcome.files, and copyBack, copied into workDir: regular files and directories only,
//   never symlinks, FIFOs or sockets), so what else a script leaves there never reaches the host's disk.
// - runtimeDir and extraReadOnlyBinds are bound from read-only overlay views of them (views.ts), so the
//   sandbox's mount table shows none of their host paths.
// - Each run has a watchdog that outlives the runner: at most the budget + 5 s (BACKSTOP_GRACE_MS) after
//   its start, or at once when the runner dies, it kills every process of the run (launcherScript).
// - The env the sandbox adds: HOME, TMPDIR, PATH, HTTP(S)_PROXY, http(s)_proxy, VIGIL_EGRESS_PROXY
//   and NO_PROXY/no_proxy=127.0.0.1:3128. NODE_USE_ENV_PROXY is not set (Node 24 start-up cost);
//   pass it in env for node's own fetch to use the proxy.
// - createSandbox options gain trustedCa (extra CAs for the proxy's own TLS to absolute-form https://
//   targets), stateDir and useCgroups (false forces the RSS-watch and RLIMIT_NPROC fallbacks).
// - runtimeDir and extraReadOnlyBinds must be world-readable: bwrap runs as an unprivileged host uid
//   of its own per run (HOST_UID_BASE + n), seen as 65534 inside.
export { createSandbox } from './sandbox.ts';
export { SandboxUnavailableError } from './errors.ts';
export { createEgressProxy, EGRESS_MAX_BYTES, EGRESS_MAX_CONNECTIONS, type EgressProxy } from './proxy.ts';
export {
  RUNTIME_NODE,
  EGRESS_PORT,
  SANDBOX_UID,
  HOST_UID_BASE,
  type Sandbox,
  type SandboxSpec,
  type SandboxOutcome,
  type SandboxOptions,
  type ProbeResult,
} from './types.ts';
