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
    spec.runtimeDir,
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
  for (const bind of spec.extraReadOnlyBinds ?? []) args.push('--ro-bind', bind.host, bind.inside);
  if (seccompFd !== undefined) args.push('--seccomp', String(seccompFd));
  args.push('--remount-ro', '/', '--chdir', '/work', '--clearenv');
  for (const [name, value] of Object.entries(sandboxEnv(spec))) args.push('--setenv', name, value);
  // The runtime's node gets the bridge preloaded in its own process; anything else runs under it.
  const [file, ...rest] = spec.command as [string, ...string[]];
  const command =
    file === RUNTIME_NODE ? [file, '--require', INSIDE.bridge, ...rest] : [RUNTIME_NODE, INSIDE.bridge, file, ...rest];
  return { options: args, command };
}

/**
 * The launcher: a shell started as the run's unprivileged host uid (no capabilities, no
 * supplementary groups) that joins the run's cgroups (their cgroup.procs are handed to that uid),
 * sets its rlimits and becomes bwrap. bwrap then makes its user namespace as that uid, so the
 * sandboxed processes are an unprivileged host user, not root with its capabilities dropped, and
 * bwrap sets no_new_privs before it loads the seccomp filter.
 */
export function launcherScript(options: {
  procsFiles: string[];
  bwrap: string;
  maxOpenFiles: number;
  fileBytes: number;
  maxProcesses: number;
}): string {
  const join = options.procsFiles.map((file) => `echo $$ > '${file}' || exit 125`);
  // dash's ulimit sets soft and hard limits together, one limit per call; -f counts 512-byte blocks.
  const limits = [
    `ulimit -n ${options.maxOpenFiles}`,
    `ulimit -f ${Math.ceil(options.fileBytes / 512)}`,
    `ulimit -p ${options.maxProcesses}`,
    'ulimit -c 0',
  ].map((line) => `${line} || exit 125`);
  return [...join, ...limits, `exec '${options.bwrap}' --args 3 -- "$@"`].join('\n');
}
