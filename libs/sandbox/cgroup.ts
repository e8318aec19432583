import { chmodSync, chownSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Per-run cgroups (v1): a memory cgroup whose limit the kernel enforces with its OOM killer, and a
 * pids cgroup that caps processes and threads of the whole tree. Each run's pair sits under a
 * directory of this runner process (under the runner's own memory cgroup, so its limits nest).
 */
export interface RunCgroup {
  /** cgroup.procs files the launcher writes its own pid to before it execs bwrap. */
  procsFiles: string[];
  memoryPeak(): number;
  oomKilled(): boolean;
  /** SIGKILLs whatever is left in the run's cgroups, waits for them to empty, removes them. */
  remove(): Promise<void>;
}

export interface Cgroups {
  /** Why per-run cgroups cannot be made, or undefined when they can. */
  unavailable: string | undefined;
  /** `uid` may then move itself in: the launcher joins the cgroups as the run's unprivileged uid. */
  create(runId: string, limits: { memoryBytes: number; maxProcesses: number }, uid: number): RunCgroup;
}

const ROOT = '/sys/fs/cgroup';

function ownPath(controller: string): string {
  const line = readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((l) => l.split(':')[1]?.split(',').includes(controller));
  return line ? line.split(':').slice(2).join(':') : '/';
}

function readPids(procsFile: string): number[] {
  try {
    return readFileSync(procsFile, 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

export function createCgroups(): Cgroups {
  let memoryBase = '';
  let pidsBase = '';
  let unavailable: string | undefined;
  try {
    memoryBase = join(ROOT, 'memory', ownPath('memory'), `vigil-sandbox-${process.pid}`);
    pidsBase = join(ROOT, 'pids', ownPath('pids'), `vigil-sandbox-${process.pid}`);
    mkdirSync(memoryBase, { recursive: true });
    mkdirSync(pidsBase, { recursive: true });
    // Set, not left to the umask (077 in the standalone server): each run's uid passes through
    // these to its own cgroup.procs; only the runner may create or remove cgroups in them.
    chmodSync(memoryBase, 0o755);
    chmodSync(pidsBase, 0o755);
    readFileSync(join(memoryBase, 'memory.limit_in_bytes'));
    readFileSync(join(pidsBase, 'pids.max'));
  } catch (error) {
    unavailable = `cgroup v1 memory and pids controllers are not writable: ${(error as Error).message}`;
  }

  return {
    unavailable,
    create(runId, limits, uid) {
      const memory = join(memoryBase, runId);
      const pids = join(pidsBase, runId);
      mkdirSync(memory);
      mkdirSync(pids);
      chmodSync(memory, 0o755);
      chmodSync(pids, 0o755);
      writeFileSync(join(memory, 'memory.limit_in_bytes'), String(limits.memoryBytes));
      // Without swap accounting the limit alone would let pages move to swap; this caps both.
      try {
        writeFileSync(join(memory, 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes));
      } catch {
        // No swap accounting on this kernel: memory.limit_in_bytes is the cap.
      }
      writeFileSync(join(pids, 'pids.max'), String(limits.maxProcesses));
      const procsFiles = [join(memory, 'cgroup.procs'), join(pids, 'cgroup.procs')];
      for (const file of procsFiles) chownSync(file, uid, uid);
      return {
        procsFiles,
        memoryPeak: () => Number(readFileSync(join(memory, 'memory.max_usage_in_bytes'), 'utf8')),
        oomKilled: () => {
          const match = /^oom_kill (\d+)$/m.exec(readFileSync(join(memory, 'memory.oom_control'), 'utf8'));
          return match !== null && Number(match[1]) > 0;
        },
        async remove() {
          for (let attempt = 0; attempt < 400; attempt += 1) {
            const left = procsFiles.flatMap(readPids);
            if (left.length === 0) break;
            for (const pid of left) {
              try {
                process.kill(pid, 'SIGKILL');
              } catch {
                // Already gone.
              }
            }
            await sleep(5);
          }
          for (const dir of [memory, pids]) {
            try {
              rmdirSync(dir);
            } catch {
              // A task still exiting; the runner's start-up sweep removes it.
            }
          }
        },
      };
    },
  };
}

/**
 * Removes per-run cgroups left by runner processes that died (their pid no longer exists). Their
 * tasks are killed first, and a cgroup is removed once its tasks have left: a SIGKILLed task
 * takes a moment to exit, and until then rmdir answers EBUSY (up to 2 s, then a later sweep).
 */
export async function sweepStaleCgroups(): Promise<void> {
  for (const controller of ['memory', 'pids']) {
    const parent = join(ROOT, controller, ownPath(controller));
    let entries: string[];
    try {
      entries = readdirSync(parent).filter((name) => name.startsWith('vigil-sandbox-'));
    } catch {
      continue;
    }
    for (const name of entries) {
      const pid = Number(name.slice('vigil-sandbox-'.length));
      if (pid === process.pid || processExists(pid)) continue;
      const dir = join(parent, name);
      let runs: string[];
      try {
        runs = readdirSync(dir, { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .map((entry) => join(dir, entry.name));
      } catch {
        // Another runner starting at the same moment swept it first.
        continue;
      }
      for (let attempt = 0; attempt < 400; attempt += 1) {
        const left = runs.flatMap((run) => readPids(join(run, 'cgroup.procs')));
        if (left.length === 0) break;
        for (const task of left) {
          try {
            process.kill(task, 'SIGKILL');
          } catch {
            // Gone.
          }
        }
        await sleep(5);
      }
      for (const run of runs) await removeWhenFree(run);
      await removeWhenFree(dir);
    }
  }
}

/** rmdir of a cgroup, retried while the kernel still counts an exited task in it (EBUSY), up to 1 s. */
async function removeWhenFree(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EBUSY') return;
      await sleep(5);
    }
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
