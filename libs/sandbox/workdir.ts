import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { chown, copyFile, cp, lstat, mkdir, open, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Files and directories /work may hold, and that are copied back: a million empty files is an attack too. */
export const MAX_ENTRIES = 16_384;

/**
 * The sandbox's /work is never the caller's directory itself: it is a size-capped tmpfs (when this
 * host lets the runner mount one) holding a copy of the caller's files, so a script can neither
 * fill the host's disk nor plant a symlink or FIFO for the runner to trip over afterwards.
 */
export interface ScratchWork {
  path: string;
  /** Whether /work is a size-capped tmpfs (false: a plain directory; only RLIMIT_FSIZE caps files). */
  capped: boolean;
  /** Copies only `paths` (relative to /work) into workDir: the rest of what the run left stays off the host's disk. */
  copyBack(workDir: string, paths: string[], maxBytes: number): Promise<void>;
  /** The first maxBytes of a regular file the run left at `path`, read in place; undefined if there is none. */
  read(path: string, maxBytes: number): Promise<Buffer | undefined>;
  release(): Promise<void>;
}

export async function prepareWork(path: string, workDir: string, sizeBytes: number, uid: number): Promise<ScratchWork> {
  await mkdir(path, { mode: 0o700 });
  let capped = true;
  try {
    await run('mount', [
      '-t',
      'tmpfs',
      '-o',
      `size=${sizeBytes},nr_inodes=${MAX_ENTRIES},uid=${uid},gid=${uid},mode=0700,nosuid,nodev`,
      'tmpfs',
      path,
    ]);
  } catch {
    capped = false;
  }
  await cp(workDir, path, { recursive: true, verbatimSymlinks: true, force: true });
  await chownTree(path, uid);
  return {
    path,
    capped,
    async copyBack(target, paths, maxBytes) {
      const budget = { left: maxBytes, entries: MAX_ENTRIES };
      for (const relative of paths) await copyOne(path, target, relative, budget).catch(() => undefined);
    },
    read: (relative, maxBytes) => readRegular(path, relative, maxBytes).catch(() => undefined),
    async release() {
      if (capped) await run('umount', ['-l', path]).catch(() => undefined);
      await rm(path, { recursive: true, force: true });
    },
  };
}

async function chownTree(dir: string, uid: number): Promise<void> {
  await chown(dir, uid, uid);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) await chownTree(full, uid);
    else if (!entry.isSymbolicLink()) await chown(full, uid, uid);
  }
}

const MAX_DEPTH = 32;

interface Budget {
  left: number;
  entries: number;
}

/**
 * Copies regular files and directories only, never through a symlink on either side, within byte,
 * entry and depth budgets. What the script left is hostile: a name that is not UTF-8, a path past
 * PATH_MAX or a file that vanished is skipped, never an error that reaches the caller.
 */
async function copyRegular(from: string, to: string, budget: Budget, depth = 0): Promise<void> {
  if (depth > MAX_DEPTH) return;
  const existing = await lstat(to).catch(() => undefined);
  if (existing?.isSymbolicLink()) return;
  if (!existing) await mkdir(to);
  else if (!existing.isDirectory()) return;
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (--budget.entries < 0) return;
    // Bytes that are not UTF-8 come back as U+FFFD: such a name cannot be opened again by it.
    if (entry.name.includes('\uFFFD')) continue;
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    try {
      if (entry.isDirectory()) await copyRegular(source, target, budget, depth + 1);
      else if (entry.isFile()) await copyFileWithin(source, target, budget);
    } catch {
      // Gone, too long a path, or otherwise unreadable: left behind.
    }
  }
}

/**
 * `from`/`relative` when every directory on the way is a real one (never a symlink) and it ends in a
 * regular file or a directory; what the run left is hostile, and the runner must not follow it out.
 */
async function inside(from: string, relative: string): Promise<{ path: string; directory: boolean } | undefined> {
  let path = from;
  const parts = relative.split('/');
  for (const [index, part] of parts.entries()) {
    path = join(path, part);
    const stat = await lstat(path);
    if (stat.isDirectory()) continue;
    return index === parts.length - 1 && stat.isFile() ? { path, directory: false } : undefined;
  }
  return { path, directory: true };
}

/** Copies one allowlisted path, making its parent directories in the target (never through a symlink). */
async function copyOne(from: string, to: string, relative: string, budget: Budget): Promise<void> {
  const source = await inside(from, relative);
  if (!source) return;
  const parts = relative.split('/');
  let target = to;
  for (const part of parts.slice(0, -1)) {
    target = join(target, part);
    const existing = await lstat(target).catch(() => undefined);
    if (!existing) await mkdir(target);
    else if (!existing.isDirectory()) return;
  }
  target = join(target, parts[parts.length - 1]!);
  if (source.directory) await copyRegular(source.path, target, budget, parts.length);
  else if (--budget.entries >= 0) await copyFileWithin(source.path, target, budget);
}

async function readRegular(from: string, relative: string, maxBytes: number): Promise<Buffer | undefined> {
  const source = await inside(from, relative);
  if (!source || source.directory) return undefined;
  // O_NONBLOCK: a FIFO swapped in would otherwise hold the open; fstat then proves what was opened.
  const handle = await open(source.path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return undefined;
    const buffer = Buffer.alloc(Math.min(maxBytes, stat.size));
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

async function copyFileWithin(source: string, target: string, budget: Budget): Promise<void> {
  const stat = await lstat(source);
  const present = await lstat(target).catch(() => undefined);
  if (!stat.isFile() || stat.size > budget.left || (present && !present.isFile())) return;
  budget.left -= stat.size;
  if (present) await rm(target);
  await copyFile(source, target, constants.COPYFILE_EXCL);
}

/** Unmounts and removes the per-run state of runner processes that died (their pid no longer exists). */
export async function sweepStaleState(parent: string): Promise<void> {
  const stale = (await readdir(parent).catch(() => [] as string[])).filter((name) => {
    const match = /^vigil-sandbox-(\d+)(-[0-9a-f]+)?$/.exec(name);
    return match !== null && Number(match[1]) !== process.pid && !alive(Number(match[1]));
  });
  if (stale.length === 0) return;
  const mounts = (await readFile('/proc/self/mountinfo', 'utf8')).split('\n').map((line) => line.split(' ')[4] ?? '');
  for (const name of stale) {
    const dir = join(parent, name);
    // Deepest first: the runs' work mounts, then the state dir's own tmpfs.
    const points = mounts.filter((m) => m === dir || m.startsWith(`${dir}/`)).sort((a, b) => b.length - a.length);
    for (const point of points) await run('umount', ['-l', point]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
