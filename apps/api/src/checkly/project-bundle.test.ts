import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { unpackBundle } from './project-bundle.ts';

/** Archives written by the system's GNU tar, in each of its formats, as a CLI's archiver might. */
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function archive(format: string, build: (root: string) => void): Buffer {
  dir = mkdtempSync(join(tmpdir(), 'vigil-bundle-test-'));
  const root = join(dir, 'project');
  mkdirSync(root);
  build(root);
  return execFileSync('tar', ['czf', '-', `--format=${format}`, '-C', root, '.']);
}

const spec = "import { test } from '@playwright/test'\ntest('x', async () => {})\n";
const deep = `${'nested/'.repeat(20)}deep.spec.ts`;

describe('unpackBundle', () => {
  for (const format of ['gnu', 'pax', 'ustar'])
    it(`reads a ${format} archive's files, directories skipped and long paths whole`, () => {
      const files = unpackBundle(
        archive(format, (root) => {
          mkdirSync(join(root, ...deep.split('/').slice(0, -1)), { recursive: true });
          writeFileSync(join(root, deep), spec);
          writeFileSync(join(root, 'playwright.config.ts'), 'export default {}\n');
        }),
      );
      expect(files.map((file) => file.path).sort()).toEqual([deep, 'playwright.config.ts']);
      expect(files.find((file) => file.path === deep)?.content).toBe(spec);
    });

  it('refuses a symbolic link, naming it', () => {
    const tar = archive('gnu', (root) => {
      writeFileSync(join(root, 'a.spec.ts'), spec);
      symlinkSync('/etc/passwd', join(root, 'passwd'));
    });
    expect(() => unpackBundle(tar)).toThrow(/passwd is not a regular file/);
  });

  it('refuses a path Vigil would not keep (hidden files), through the files schema', () => {
    const tar = archive('gnu', (root) => {
      writeFileSync(join(root, 'a.spec.ts'), spec);
      writeFileSync(join(root, '.env'), 'SECRET=1\n');
    });
    expect(() => unpackBundle(tar)).toThrow(/codeBundle: /);
  });
});
