import { execFile } from 'node:child_process';
import { chmod, mkdir, rm, stat, symlink, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '#core';

const run = promisify(execFile);

/**
 * Where the sandbox binds a read-only host path from. /proc/self/mountinfo inside the sandbox shows,
 * for every bind, the source's path within its filesystem: bound straight, a runtime names where the
 * repository (or DATA_DIR) is. So each source directory is bound from a view of it instead: a
 * read-only overlay mounted in the state dir's tmpfs, whose layers are named by relative paths (a
 * symlink to the source, and an empty dir: overlayfs wants two layers when it has no upper one).
 * The sandbox then sees "/" of an overlay with the options "lowerdir=src:empty", and no host path.
 */
export interface Views {
  /** The path to bind instead of `host` (a file is bound from its directory's view). */
  of(host: string): Promise<string>;
}

interface View {
  path: string;
  /** The source's identity when the view was made: a source replaced since (a reinstall) gets a new view. */
  dev: number;
  ino: number;
}

/**
 * `dir` is in the state dir's tmpfs. `discreet` is false where the runner may not mount (the state
 * dir is then a plain directory too): sources are then bound as they are, as they are when overlayfs
 * refuses one (logged once per source).
 */
export function createViews(dir: string, discreet: boolean, logger: Logger): Views {
  const made = new Map<string, Promise<View>>();
  let count = 0;

  async function make(source: string, identity: { dev: number; ino: number }): Promise<View> {
    const at = join(dir, String((count += 1)));
    try {
      await mkdir(join(at, 'empty'), { recursive: true, mode: 0o711 });
      await mkdir(join(at, 'view'), { mode: 0o711 });
      // The umask may be 077 (the standalone server's): the run's uid must pass through these.
      for (const path of [at, join(at, 'empty'), join(at, 'view')]) await chmod(path, 0o711);
      await symlink(source, join(at, 'src'));
      // Run from the view's own dir: the overlay's options then carry only these relative names.
      await run('mount', ['-t', 'overlay', 'overlay', '-o', 'ro,lowerdir=src:empty', 'view'], { cwd: at });
      await unlink(join(at, 'src'));
      return { path: join(at, 'view'), ...identity };
    } catch (error) {
      logger.warn({ err: error, source }, 'sandbox: no overlay view; the mount table inside shows this host path');
      await rm(at, { recursive: true, force: true }).catch(() => undefined);
      return { path: source, ...identity };
    }
  }

  async function retire(view: View): Promise<void> {
    if (!view.path.startsWith(`${dir}/`)) return;
    // A run still bound to it keeps its copy of the mount: the lazy unmount only detaches it here.
    await run('umount', ['-l', view.path]).catch(() => undefined);
    await rm(dirname(view.path), { recursive: true, force: true }).catch(() => undefined);
  }

  async function viewOf(source: string): Promise<string> {
    const now = await stat(source);
    for (;;) {
      const known = made.get(source);
      if (!known) break;
      const view = await known;
      if (made.get(source) !== known) continue; // Replaced while we waited: look again.
      if (view.dev === now.dev && view.ino === now.ino) return view.path;
      made.delete(source);
      void retire(view);
      break;
    }
    const making = make(source, { dev: now.dev, ino: now.ino });
    made.set(source, making);
    return (await making).path;
  }

  return {
    async of(host) {
      if (!discreet) return host;
      if ((await stat(host)).isDirectory()) return viewOf(host);
      return join(await viewOf(dirname(host)), basename(host));
    },
  };
}
