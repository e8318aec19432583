import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { chown } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InternalError, ValidationError } from '#core';
import { bwrapArgs, launcherScript, WATCHDOG_FD, WATCHDOG_PROCESSES, type HostFiles } from './bwrap-args.ts';
import { createCgroups, sweepStaleCgroups, type Cgroups, type RunCgroup } from './cgroup.ts';
import { SandboxUnavailableError } from './errors.ts';
import { probeBwrap } from './probe.ts';
import { createEgressProxy } from './proxy.ts';
import { seccompProgram } from './seccomp.ts';
import { watchOom, watchTreeMemory } from './rss-watch.ts';
import {
  DEFAULT_DISK_BYTES,
  DEFAULT_MAX_OPEN_FILES,
  DEFAULT_MAX_PROCESSES,
  HOST_UID_BASE,
  HOST_UID_SPAN,
  SANDBOX_UID,
  sandboxSpecSchema,
  type ProbeResult,
  type Sandbox,
  type SandboxOptions,
  type SandboxOutcome,
  type SandboxSpec,
} from './types.ts';
import { createViews, type Views } from './views.ts';
import { prepareWork, sweepStaleState } from './workdir.ts';

const BRIDGE_SOURCE = fileURLToPath(new URL('./bridge.cjs', import.meta.url));

type StaticFiles = Pick<HostFiles, 'bridge' | 'passwd' | 'group' | 'hosts'>;

/**
 * Static files every run binds read-only: the bridge and a minimal passwd, group and hosts.
 * `discreet`: whether the state dir is a tmpfs of its own (this process may mount).
 */
function writeStaticFiles(base: string): { files: StaticFiles; discreet: boolean } {
  mkdirSync(base, { recursive: true, mode: 0o711 });
  // A small tmpfs of its own: the sandbox's mount table then shows the files bound from here by
  // their path in it (/bridge.cjs, /<run>/proxy.sock), not the runner's pid and state dir.
  let discreet = true;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m,mode=0711,nosuid,nodev', 'tmpfs', base], { stdio: 'ignore' });
  } catch {
    // Not allowed to mount here: a plain directory works the same, only less discreet.
    discreet = false;
  }
  chmodSync(base, 0o711);
  const files = {
    bridge: join(base, 'bridge.cjs'),
    passwd: join(base, 'passwd'),
    group: join(base, 'group'),
    hosts: join(base, 'hosts'),
  };
  copyFileSync(BRIDGE_SOURCE, files.bridge);
  writeFileSync(files.passwd, `nobody:x:${SANDBOX_UID}:${SANDBOX_UID}:nobody:/work:/usr/sbin/nologin\n`);
  writeFileSync(files.group, `nogroup:x:${SANDBOX_UID}:\n`);
  writeFileSync(files.hosts, '127.0.0.1 localhost sandbox\n::1 localhost\n');
  for (const file of Object.values(files)) chmodSync(file, 0o644);
  return { files, discreet };
}

export function createSandbox(options: SandboxOptions): Sandbox {
  const bwrap = options.bwrapPath ?? '/usr/bin/bwrap';
  const seccomp = seccompProgram();
  const stateDir = options.stateDir ?? tmpdir();
  // One directory per sandbox (a process may hold several); the pid lets a later start sweep it.
  const base = join(stateDir, `vigil-sandbox-${process.pid}-${randomBytes(4).toString('hex')}`);
  let staticFiles: StaticFiles | undefined;
  let views: Views | undefined;
  let cgroups: Cgroups | undefined;
  let probed: Promise<ProbeResult> | undefined;
  const running = new Set<Promise<unknown>>();
  const background = new Set<Promise<void>>();
  // A uid per live run; the offset from this process's pid keeps two runners on one host apart.
  const hostUids = new Set<number>();
  let nextUid = (process.pid * 7919) % HOST_UID_SPAN;
  function takeHostUid(): number {
    for (;;) {
      nextUid = (nextUid + 1) % HOST_UID_SPAN;
      const uid = HOST_UID_BASE + nextUid;
      if (!hostUids.has(uid)) {
        hostUids.add(uid);
        return uid;
      }
    }
  }
  let closed = false;

  function probe(): Promise<ProbeResult> {
    probed ??= (async () => {
      try {
        const written = writeStaticFiles(base);
        staticFiles = written.files;
        mkdirSync(join(base, 'views'), { mode: 0o711 });
        // Modes are set, not left to the umask: the standalone server runs with umask 077, and the
        // run's unprivileged uid must still pass through these directories.
        chmodSync(join(base, 'views'), 0o711);
        views = createViews(join(base, 'views'), written.discreet, options.logger);
      } catch (error) {
        return { available: false, reason: `cannot write ${base}: ${(error as Error).message}` };
      }
      await sweepStaleCgroups();
      await sweepStaleState(stateDir);
      cgroups = options.useCgroups === false ? undefined : createCgroups();
      if (!cgroups || cgroups.unavailable)
        options.logger.warn(
          { reason: cgroups?.unavailable ?? 'turned off' },
          'sandbox: no per-run cgroups; memory watched by RSS, processes capped by RLIMIT_NPROC',
        );
      return probeBwrap(bwrap, base);
    })();
    return probed;
  }

  async function run(input: SandboxSpec): Promise<SandboxOutcome> {
    if (closed) throw new SandboxUnavailableError('the sandbox is closed');
    const parsed = sandboxSpecSchema.safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new ValidationError(`sandbox spec ${issue?.path.join('.') || ''}: ${issue?.message ?? 'invalid'}`);
    }
    const verdict = await probe();
    if (!verdict.available) throw new SandboxUnavailableError(verdict.reason);
    const task = runOnce(input);
    running.add(task);
    try {
      return await task;
    } finally {
      running.delete(task);
    }
  }

  async function runOnce(spec: SandboxSpec): Promise<SandboxOutcome> {
    const started = performance.now();
    const runId = randomBytes(6).toString('hex');
    const runDir = join(base, runId);
    const disk = spec.diskBytes ?? DEFAULT_DISK_BYTES;
    const maxProcesses = spec.maxProcesses ?? DEFAULT_MAX_PROCESSES;
    mkdirSync(runDir, { mode: 0o711 });
    chmodSync(runDir, 0o711);
    const hostUid = takeHostUid();
    // Processes and sockets go before the run answers; the work mount and files after, off the path.
    const now: (() => Promise<void> | void)[] = [];
    const later: (() => Promise<void> | void)[] = [
      () => rmSync(runDir, { recursive: true, force: true }),
      () => void hostUids.delete(hostUid),
    ];
    try {
      const work = await prepareWork(join(runDir, 'work'), spec.workDir, disk, hostUid);
      later.unshift(() => work.release());
      const proxy = createEgressProxy({
        allowPrivate: spec.allowPrivate,
        logger: options.logger,
        ...(options.trustedCa ? { trustedCa: options.trustedCa } : {}),
      });
      const socket = join(runDir, 'proxy.sock');
      await proxy.listen(socket);
      now.push(() => proxy.close());
      await chown(socket, hostUid, hostUid);
      chmodSync(socket, 0o600);
      let cgroup: RunCgroup | undefined;
      if (cgroups && !cgroups.unavailable) {
        // The launcher's watchdog is not the script's: it does not count against the script's cap.
        const limits = { memoryBytes: spec.memoryBytes, maxProcesses: maxProcesses + WATCHDOG_PROCESSES };
        cgroup = cgroups.create(runId, limits, hostUid);
        now.push(() => cgroup?.remove());
      }
      const host: HostFiles = {
        ...staticFiles!,
        socket,
        work: work.path,
        runtime: await views!.of(spec.runtimeDir),
        readOnly: await Promise.all(
          (spec.extraReadOnlyBinds ?? []).map(async (bind) => ({
            host: await views!.of(bind.host),
            inside: bind.inside,
          })),
        ),
      };
      const outcome = await execute(spec, host, disk, maxProcesses, cgroup, started, hostUid);
      // Nothing of the run may still be alive while its files are read back (the pid namespace
      // ended with bwrap; the cgroup sweep is the belt to those braces). Only what the caller named
      // comes out: a script that fills /work costs the host's disk nothing.
      await cgroup?.remove();
      const files: Record<string, Buffer> = {};
      for (const { path, maxBytes } of spec.readFiles ?? []) {
        const content = await work.read(path, maxBytes);
        if (content) files[path] = content;
      }
      if (spec.copyBack?.length) await work.copyBack(spec.workDir, spec.copyBack, disk);
      return { ...outcome, files };
    } catch (error) {
      // Failures of the runner's own set-up name host paths (state dir, cgroups): logged, not returned.
      options.logger.error({ err: error, runId }, 'sandbox: could not prepare or run');
      throw new InternalError(`sandbox run ${runId} failed in the runner (its log has the cause)`);
    } finally {
      const safely = async (step: () => Promise<void> | void) => {
        try {
          await step();
        } catch (error) {
          options.logger.warn({ err: error, runId }, 'sandbox: cleanup step failed');
        }
      };
      await Promise.all(now.map(safely));
      const tail = (async () => {
        for (const step of later) await safely(step);
      })();
      background.add(tail);
      void tail.finally(() => background.delete(tail));
    }
  }

  function execute(
    spec: SandboxSpec,
    host: HostFiles,
    disk: number,
    maxProcesses: number,
    cgroup: RunCgroup | undefined,
    started: number,
    hostUid: number,
  ): Promise<SandboxOutcome> {
    const script = launcherScript({
      procsFiles: cgroup?.procsFiles ?? [],
      bwrap,
      maxOpenFiles: spec.maxOpenFiles ?? DEFAULT_MAX_OPEN_FILES,
      fileBytes: disk,
      // RLIMIT_NPROC counts the processes of the run's own host uid (bwrap's two and the watchdog included).
      maxProcesses: maxProcesses + 2 + WATCHDOG_PROCESSES,
      timeoutMs: spec.timeoutMs,
    });
    const args = bwrapArgs(spec, host, disk, seccomp ? 4 : undefined);
    // An empty environment: bwrap's own pid 1 inside the sandbox keeps the environ it was started with.
    const child = spawn('/bin/sh', ['-c', script, 'sandbox', ...args.command], {
      env: {},
      // The shell would export its cwd as PWD, and bwrap's init would keep it: start from /.
      cwd: '/',
      uid: hostUid,
      gid: hostUid,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', seccomp ? 'pipe' : 'ignore', 'pipe'],
      detached: true,
    });
    const spawned = performance.now();
    // The watchdog's socket (launcherScript): closing this end, or dying, ends the whole run.
    const watchdog = (child.stdio as unknown as (Socket | null)[])[WATCHDOG_FD]!;
    watchdog.on('error', () => undefined);
    const argsPipe = child.stdio[3] as NodeJS.WritableStream;
    argsPipe.on('error', () => undefined);
    argsPipe.end(Buffer.from(args.options.map((a) => `${a}\0`).join('')));
    if (seccomp) {
      const filterPipe = child.stdio[4] as NodeJS.WritableStream;
      filterPipe.on('error', () => undefined);
      filterPipe.end(seccomp);
    }

    return new Promise((resolve) => {
      let killed: SandboxOutcome['killed'];
      let truncated = false;
      const out = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
      const sizes = { stdout: 0, stderr: 0 };
      const kill = (reason: NonNullable<SandboxOutcome['killed']>) => {
        killed ??= reason;
        // The watchdog kills every process of the run's uid; bwrap goes at once, and its pid 1 with it.
        // Not its process group: that would kill the watchdog before it could sweep.
        watchdog.destroy();
        try {
          process.kill(child.pid!, 'SIGKILL');
        } catch {
          // Already gone.
        }
      };
      for (const name of ['stdout', 'stderr'] as const) {
        child[name]!.on('data', (chunk: Buffer) => {
          const room = spec.maxOutputBytes - sizes[name];
          if (room > 0) out[name].push(room >= chunk.length ? chunk : chunk.subarray(0, room));
          sizes[name] += chunk.length;
          if (sizes[name] > spec.maxOutputBytes) {
            truncated = true;
            kill('output');
          }
        });
      }
      const timer = setTimeout(() => kill('timeout'), spec.timeoutMs);
      const onAbort = () => kill('aborted');
      if (spec.signal?.aborted) onAbort();
      spec.signal?.addEventListener('abort', onAbort, { once: true });
      // The kernel's OOM killer takes one process at the cap; the rest of the tree goes with it.
      const stopWatch = cgroup
        ? watchOom(cgroup, () => kill('memory'))
        : watchTreeMemory(child.pid!, spec.memoryBytes, () => kill('memory'));
      // The run is over: the watchdog sweeps what is left of it and goes ('close' waits for its socket).
      child.once('exit', () => watchdog.destroy());
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        spec.signal?.removeEventListener('abort', onAbort);
        stopWatch?.();
        if (!killed && cgroup?.oomKilled()) killed = 'memory';
        // The watchdog's own deadline came first (a stalled runner): still the budget's kill.
        if (!killed && signal && performance.now() - spawned >= spec.timeoutMs) killed = 'timeout';
        resolve({
          exitCode: code,
          signal,
          stdout: Buffer.concat(out.stdout).toString('utf8'),
          stderr: Buffer.concat(out.stderr).toString('utf8'),
          truncated,
          ...(killed ? { killed } : {}),
          durationMs: Math.round(performance.now() - started),
        });
      });
    });
  }

  return {
    probe,
    run,
    async close() {
      closed = true;
      await Promise.allSettled([...running]);
      await Promise.allSettled([...background]);
      try {
        execFileSync('umount', ['-l', base], { stdio: 'ignore' });
      } catch {
        // Not a mount point (mount was refused at start).
      }
      rmSync(base, { recursive: true, force: true });
    },
  };
}
