import { EGRESS_PORT, RUNTIME_NODE, SANDBOX_UID, type SandboxSpec } from './types.ts';

/** Paths inside the sandbox that the runner provides. */
export const INSIDE = {
  bridge: '/.vigil/bridge.cjs',
  socket: '/.vigil/proxy.sock',
} as const;

export interface HostFiles {
  bridge: string;
  passwd: string;
  group: string;
  hosts: string;
  socket: string;
  work: string;
  /** spec.runtimeDir and spec.extraReadOnlyBinds' hosts as bound: their views (views.ts), not their host paths. */
  runtime: string;
  readOnly: { host: string; inside: string }[];
}

// Read-only pieces of /etc a runtime and Chromium need: CAs, fonts, the chromium launcher's flags,
// the alternatives that /usr/bin links point through. Never /etc/ssl/private, shadow or resolv.conf.
const ETC = [
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
  '/etc/ca-certificates',
  '/etc/fonts',
  '/etc/chromium',
  '/etc/chromium.d',
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/localtime',
  '/etc/mime.types',
  '/etc/nsswitch.conf',
];

export function sandboxEnv(spec: SandboxSpec): Record<string, string> {
  const proxy = `http://127.0.0.1:${EGRESS_PORT}`;
  return {
    ...spec.env,
    HOME: '/work',
    TMPDIR: '/tmp',
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    http_proxy: proxy,
    https_proxy: proxy,
    VIGIL_EGRESS_PROXY: proxy,
    // The proxy itself is reached directly: with NODE_USE_ENV_PROXY=1 (which a caller may add to make
    // Node ≥ 24's fetch and http use the proxy; it is not set here because it costs Node 24 ~40 ms of
    // start-up), node's own agent would otherwise proxy axios's already-proxied request a second time.
    NO_PROXY: `127.0.0.1:${EGRESS_PORT}`,
    no_proxy: `127.0.0.1:${EGRESS_PORT}`,
  };
}

/**
 * bwrap's options (passed through a pipe with --args, so host paths stay out of the sandbox's
 * /proc/1/cmdline) and the command line inside (which bwrap only takes from argv).
 */
export function bwrapArgs(
  spec: SandboxSpec,
  host: HostFiles,
  disk: number,
  seccompFd?: number,
): { options: string[]; command: string[] } {
  const args = [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--uid',
    String(SANDBOX_UID),
    '--gid',
    String(SANDBOX_UID),
    '--hostname',
    'sandbox',
    '--ro-bind',
    '/usr',
    '/usr',
    '--symlink',
    'usr/lib',
    '/lib',
    '--symlink',
    'usr/lib64',
    '/lib64',
    '--symlink',
    'usr/bin',
    '/bin',
    '--symlink',
    'usr/sbin',
    '/sbin',
  ];
  for (const path of ETC) args.push('--ro-bind-try', path, path);
  args.push(
    '--ro-bind',
    host.passwd,
    '/etc/passwd',
    '--ro-bind',
    host.group,
    '/etc/group',
    '--ro-bind',
    host.hosts,
    '/etc/hosts',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(Math.min(disk, 256 * 1024 * 1024)),
    '--tmpfs',
    '/dev/shm',
    '--size',
    String(disk),
    '--tmpfs',
    '/tmp',
    '--ro-bind',
    host.runtime,
    '/runtime',
    '--bind',
    host.work,
    '/work',
    '--ro-bind',
    host.bridge,
    INSIDE.bridge,
    '--bind',
    host.socket,
    INSIDE.socket,
  );
  for (const bind of host.readOnly) args.push('--ro-bind', bind.host, bind.inside);
  if (seccompFd !== undefined) args.push('--seccomp', String(seccompFd));
  args.push('--remount-ro', '/', '--chdir', '/work', '--clearenv');
  for (const [name, value] of Object.entries(sandboxEnv(spec))) args.push('--setenv', name, value);
  // The runtime's node gets the bridge preloaded in its own process; anything else runs under it.
  const [file, ...rest] = spec.command as [string, ...string[]];
  const command =
    file === RUNTIME_NODE ? [file, '--require', INSIDE.bridge, ...rest] : [RUNTIME_NODE, INSIDE.bridge, file, ...rest];
  return { options: args, command };
}

/** Beyond its budget, how long a run may live when the runner cannot kill it (gone, or stalled). */
export const BACKSTOP_GRACE_MS = 5_000;
/** The watchdog's processes (launcherScript): the script's process caps do not count them. */
export const WATCHDOG_PROCESSES = 3;
/** The watchdog's tools (coreutils, part of every Debian); the probe checks they are there. */
export const WATCHDOG_TOOLS = { timeout: '/usr/bin/timeout', cat: '/usr/bin/cat' } as const;
/** The fd the launcher gets the watchdog's socket on (0-2 stdio, 3 bwrap's options, 4 the seccomp filter). */
export const WATCHDOG_FD = 5;

/**
 * The launcher: a shell started as the run's unprivileged host uid (no capabilities, no
 * supplementary groups) that joins the run's cgroups (their cgroup.procs are handed to that uid),
 * sets its rlimits and becomes bwrap. bwrap then makes its user namespace as that uid, so the
 * sandboxed processes are an unprivileged host user, not root with its capabilities dropped, and
 * bwrap sets no_new_privs before it loads the seccomp filter.
 *
 * Before it becomes bwrap it leaves a watchdog behind, because bwrap's --die-with-parent comes too
 * late: a runner killed after it started this shell but before bwrap reached its prctl would leave
 * the sandbox running with no wall-clock limit (the runner's timer died with it). The watchdog
 * waits on a socket whose other end only the runner holds, for at most the budget plus a grace:
 * when the runner closes it (the run is over, or must be killed) or dies, or the time is up, it
 * kills every process of the run's host uid. kill(-1) reaches them wherever they are (in another
 * session, process group or pid namespace, reparented, half-started), and nothing else runs as that
 * uid. Nothing ties the watchdog's life to the runner's, so it outlives a runner killed at any moment.
 */
export function launcherScript(options: {
  procsFiles: string[];
  bwrap: string;
  maxOpenFiles: number;
  fileBytes: number;
  maxProcesses: number;
  timeoutMs: number;
}): string {
  const join = options.procsFiles.map((file) => `echo $$ > '${file}' || exit 125`);
  // dash's ulimit sets soft and hard limits together, one limit per call; -f counts 512-byte blocks.
  const limits = [
    `ulimit -n ${options.maxOpenFiles}`,
    `ulimit -f ${Math.ceil(options.fileBytes / 512)}`,
    `ulimit -p ${options.maxProcesses}`,
    'ulimit -c 0',
  ].map((line) => `${line} || exit 125`);
  const seconds = ((options.timeoutMs + BACKSTOP_GRACE_MS) / 1000).toFixed(3);
  const fd = WATCHDOG_FD;
  const { timeout, cat } = WATCHDOG_TOOLS;
  // cat returns at EOF (or timeout kills it); then the kill, whatever else happened (cat failing
  // included). The watchdog keeps none of the pipes the runner waits on (cat wants some stdout:
  // /dev/null); bwrap, and so the sandbox, never get its socket.
  const watchdog = `{ '${timeout}' -s KILL ${seconds} '${cat}'; kill -9 -1; } <&${fd} >/dev/null 2>&1 3<&- 4<&- &`;
  return [...join, ...limits, watchdog, `exec ${fd}<&-`, `exec '${options.bwrap}' --args 3 -- "$@"`].join('\n');
}
