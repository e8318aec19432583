import { randomUUID } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { UnavailableError, sleep, type Logger } from '#core';

interface Holder {
  pid: number;
  host: string;
  at: number;
  token: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but is not ours.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readHolder(path: string): Promise<Holder | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Holder;
  } catch {
    // Missing, or half-written by a holder that has just created it: treat as held, look again.
    return undefined;
  }
}

export interface LockOptions {
  logger: Logger;
  /** How long to wait for another installer before giving up. */
  waitMs?: number;
  /** A lock older than this is stale even if its holder seems alive (a hung install). */
  staleMs?: number;
}

/**
 * Runs fn while holding a lock file made with O_EXCL, so the test setup and a runner starting at the
 * same time do not install the same runtime twice. Correctness does not rest on it: installs go to a
 * private directory and are renamed into place, so breaking a lock wrongly costs work, never a corrupt
 * install.
 */
export async function withInstallLock<T>(path: string, fn: () => Promise<T>, options: LockOptions): Promise<T> {
  const waitMs = options.waitMs ?? 15 * 60_000;
  const staleMs = options.staleMs ?? 20 * 60_000;
  const token = randomUUID();
  const deadline = Date.now() + waitMs;
  let told = false;
  for (;;) {
    try {
      const handle = await open(path, 'wx');
      try {
        await handle.writeFile(JSON.stringify({ pid: process.pid, host: hostname(), at: Date.now(), token }));
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(path);
    const stale = holder && ((holder.host === hostname() && !alive(holder.pid)) || Date.now() - holder.at > staleMs);
    if (stale) {
      options.logger.warn({ path, holder }, 'breaking a stale runtime install lock');
      // Renamed, not unlinked: of two processes breaking it at once, only one succeeds.
      await rename(path, `${path}.stale-${token}`).then(
        () => rm(`${path}.stale-${token}`, { force: true }),
        () => undefined,
      );
      continue;
    }
    if (Date.now() > deadline)
      throw new UnavailableError(`another process has held ${path} for too long (pid ${holder?.pid ?? '?'})`);
    if (!told) options.logger.info({ path, holder: holder?.pid }, 'waiting for another runtime installer');
    told = true;
    await sleep(250);
  }
  try {
    return await fn();
  } finally {
    const holder = await readHolder(path);
    if (holder?.token === token) await rm(path, { force: true });
  }
}
