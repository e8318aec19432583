import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { assertDay, assertKey } from './keys.ts';
import type { ArtifactStore, StoredArtifact } from './port.ts';

const META = '.meta.json';

const missing = (error: unknown) => (error as { code?: string }).code === 'ENOENT';

/** Writes a file whole or not at all: a temp file, fsynced, renamed into place. */
async function writeDurably(path: string, data: Buffer | string): Promise<void> {
  const temp = `${path}.${randomUUID()}.tmp`;
  const handle = await open(temp, 'w', 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
}

async function entries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (error) {
    if (missing(error)) return [];
    throw error;
  }
}

/**
 * Artifacts as files under `root` (DATA_DIR/artifacts when embedded), one directory level per
 * key part. Each body has a small metadata file beside it, written first, so a body is never
 * there without its content type.
 */
export function createFilesystemArtifactStore(root: string): ArtifactStore {
  const pathOf = (key: string) => {
    assertKey(key);
    return join(root, ...key.split('/'));
  };

  // A metadata file without its body (a crash between the two writes) is listed too, so it expires.
  const collect = async (dir: string, prefix: string, depth: number, out: Set<string>, limit: number) => {
    for (const name of await entries(dir)) {
      if (out.size >= limit) return;
      if (depth < 4) await collect(join(dir, name), `${prefix}/${name}`, depth + 1, out, limit);
      else if (!name.endsWith('.tmp')) out.add(`${prefix}/${name.endsWith(META) ? name.slice(0, -META.length) : name}`);
    }
  };

  /** Removes the empty directories a delete left, up to the root, so old days disappear whole. */
  const prune = async (dir: string) => {
    while (dir.startsWith(root) && dir !== root) {
      try {
        await rmdir(dir);
      } catch {
        return;
      }
      dir = dirname(dir);
    }
  };

  return {
    async put(key, body, contentType) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      await writeDurably(path + META, JSON.stringify({ contentType }));
      await writeDurably(path, body);
    },
    async get(key): Promise<StoredArtifact | null> {
      const path = pathOf(key);
      try {
        const [meta, info] = await Promise.all([readFile(path + META, 'utf8'), stat(path)]);
        const { contentType } = JSON.parse(meta) as { contentType: string };
        return { body: createReadStream(path), contentType, bytes: info.size };
      } catch (error) {
        if (missing(error)) return null;
        throw error;
      }
    },
    async delete(keys) {
      const dirs = new Set<string>();
      for (const key of keys) {
        const path = pathOf(key);
        await rm(path, { force: true });
        await rm(path + META, { force: true });
        dirs.add(dirname(path));
      }
      for (const dir of dirs) await prune(dir);
    },
    async listBefore(beforeDay, limit) {
      assertDay(beforeDay);
      const out = new Set<string>();
      for (const day of await entries(root)) {
        if (day >= beforeDay || out.size >= limit) break;
        await collect(join(root, day), day, 1, out, limit);
      }
      return [...out];
    },
    async ping() {
      await mkdir(root, { recursive: true });
    },
    async close() {},
  };
}
