import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { artifactStoreContract } from './contract.ts';
import { createFilesystemArtifactStore } from './filesystem.ts';
import { artifactKey } from './keys.ts';

const roots: string[] = [];
const freshRoot = async () => {
  const root = await mkdtemp(join(tmpdir(), 'vigil-artifacts-'));
  roots.push(root);
  return root;
};
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

artifactStoreContract('filesystem', async () => createFilesystemArtifactStore(join(await freshRoot(), 'artifacts')));

describe('filesystem artifact store', () => {
  it('removes the directories a delete empties, so an expired day leaves nothing behind', async () => {
    const root = await freshRoot();
    const store = createFilesystemArtifactStore(root);
    const id = '00000000-0000-4000-8000-000000000001';
    const k = artifactKey({
      startedAt: '2001-02-03T00:00:00Z',
      accountId: id,
      checkId: id,
      resultId: id,
      artifactId: id,
    });
    await store.put(k, Buffer.from('x'), 'text/plain');
    expect(await readdir(root)).toEqual(['2001-02-03']);
    await store.delete(await store.listBefore('2001-02-04', 10));
    expect(await readdir(root)).toEqual([]);
  });
});
