import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { MODULES_INSIDE } from './transform.ts';

const ENTRIES = ['preload', 'reporter', 'test'] as const;

// What an ES module gets for `@playwright/test`: Node cannot see the names of a CommonJS module
// that assigns them at run time, so they are listed, as the runtime's own index.mjs does.
const ESM_NAMES = [
  'test',
  'expect',
  'request',
  'devices',
  'defineConfig',
  'mergeTests',
  'mergeExpects',
  'chromium',
  'firefox',
  'webkit',
  'selectors',
  'errors',
];
const ESM_ENTRY = [
  "import shim from './test.cjs';",
  'export default shim;',
  ...ESM_NAMES.map((name) => `export const ${name} = shim.${name};`),
  '',
].join('\n');

export interface Harness {
  dir: string;
  close(): Promise<void>;
}

/**
 * Compiles the in-sandbox harness (harness/*.ts) into CommonJS files in a private temp dir, bound
 * read-only into every run. Built once per runner from the sources beside this file, so the same
 * code runs from the source tree and from dist/ (whose bundles point back at their sources).
 */
export async function buildHarness(): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-harness-'));
  try {
    await build({
      entryPoints: Object.fromEntries(
        ENTRIES.map((name) => [name, fileURLToPath(new URL(`./harness/${name}.ts`, import.meta.url))]),
      ),
      outdir: dir,
      outExtension: { '.js': '.cjs' },
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node18',
      external: [`${MODULES_INSIDE}/*`],
      logLevel: 'silent',
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  await writeFile(join(dir, 'test.mjs'), ESM_ENTRY);
  // The sandboxed process runs as nobody: the harness must be readable to it, and to nobody else writable.
  await chmodTree(dir);
  return { dir, close: () => rm(dir, { recursive: true, force: true }) };
}

export async function chmodTree(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await chmodTree(path);
    else await chmod(path, 0o644);
  }
}
