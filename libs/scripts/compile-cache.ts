import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '#core';
import type { InstalledRuntime } from '#runtimes';
import { chmodTree } from './harness.ts';
import type { ScriptRunRequest } from './types.ts';

/** Where a runtime's filled compile cache is bound, read-only, in every later run. */
export const COMPILE_CACHE_INSIDE = '/vigil-compile-cache';
/** Where the warm-up run fills it, inside /work (the one path of /work the runner copies back). */
export const WARM_UP_CACHE_DIR = '.compile-cache';

/** Vigil's own script, not a user's: it loads what runs load (Playwright Test, request, a page). */
const WARM_UP_SCRIPT = `import { test, expect } from '@playwright/test';
test('warm up', async ({ page, request }) => {
  await test.step('request', async () => {
    await request.get('http://127.0.0.1:9/').catch(() => undefined);
  });
  await test.step('page', async () => {
    await page.setContent('<p>warm</p>');
    await expect(page.locator('p')).toHaveText('warm');
  });
});`;

export function warmUpRequest(runtimeName: string): ScriptRunRequest {
  return { kind: 'PLAYWRIGHT', script: WARM_UP_SCRIPT, runtimeName, env: {}, timeoutMs: 120_000, allowPrivate: false };
}

export interface CompileCaches {
  /** The runtime's filled cache dir, or undefined while it is being filled (the run goes without). */
  get(runtime: InstalledRuntime, harnessDir: string): string | undefined;
  close(): Promise<void>;
}

/**
 * One V8 compile cache per runtime and runner process, filled by a warm-up run in the background
 * the first time the runtime is used. Only Vigil's warm-up writes it; runs read a copy.
 */
export function createCompileCaches(options: {
  logger: Logger;
  fill: (runtime: InstalledRuntime, harnessDir: string, into: string) => Promise<void>;
}): CompileCaches {
  const ready = new Map<string, string>();
  const pending = new Map<string, Promise<void>>();
  const dirs: string[] = [];

  async function fill(runtime: InstalledRuntime, harnessDir: string): Promise<void> {
    const dir = await mkdtemp(join(tmpdir(), `vigil-compile-cache-${runtime.name}-`));
    dirs.push(dir);
    const into = join(dir, 'cache');
    try {
      await options.fill(runtime, harnessDir, into);
      await chmodTree(dir);
      ready.set(runtime.name, into);
    } catch (error) {
      options.logger.warn({ err: error, runtime: runtime.name }, 'compile cache not filled; runs go without');
    }
  }

  return {
    get(runtime, harnessDir) {
      const dir = ready.get(runtime.name);
      if (dir) return dir;
      if (!pending.has(runtime.name)) pending.set(runtime.name, fill(runtime, harnessDir));
      return undefined;
    },
    async close() {
      await Promise.allSettled(pending.values());
      pending.clear();
      ready.clear();
      await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}
