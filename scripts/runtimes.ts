// npm run runtimes:install [name…]   install runtimes from their committed lockfiles (default: every
//                                    runtime not REMOVED today) and print time and size of each
// tsx scripts/runtimes.ts lock [name…]      regenerate runtimes/<name>/package.json + package-lock.json
// tsx scripts/runtimes.ts browser [name…]   ask each installed runtime's Playwright to drive Chromium
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readdir, lstat, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { createLogger, parseConfig } from '#core';
import {
  chromiumMajor,
  findInstalled,
  installRuntime,
  loadCatalogue,
  lockfileDir,
  probeChromium,
  RuntimeCatalogue,
  runtimeManifest,
  runtimesRoot,
} from '#runtimes';

const run = promisify(execFile);
const config = parseConfig(
  z.object({
    VIGIL_RUNTIMES_DIR: z.string().min(1).optional(),
    CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
    LOG_LEVEL: z.string().default('info'),
  }),
);
const logger = createLogger({ level: config.LOG_LEVEL, name: 'runtimes' });
const root = runtimesRoot(config.VIGIL_RUNTIMES_DIR);
const catalogue = new RuntimeCatalogue(loadCatalogue(), () => new Date());

function selected(names: string[]) {
  if (names.length === 0) return catalogue.usable();
  return names.map((name) => {
    const runtime = catalogue.get(name);
    if (!runtime)
      throw new Error(`unknown runtime ${name}; known: ${catalogue.runtimes.map((r) => r.name).join(', ')}`);
    return runtime;
  });
}

/** Bytes on disk under dir (files and symlinks themselves, not their targets). */
async function diskBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? await diskBytes(path) : (await lstat(path)).size;
  }
  return total;
}

async function install(names: string[]): Promise<void> {
  for (const runtime of selected(names)) {
    const warm = (await findInstalled(root, runtime.name)) !== undefined;
    const started = performance.now();
    const installed = await installRuntime(root, runtime.name, { logger });
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const mib = ((await diskBytes(installed.dir)) / 1024 / 1024).toFixed(0);
    console.log(
      `${runtime.name}  node ${installed.nodeVersion}  ${warm ? 'already installed' : 'installed'} in ${seconds} s  ${mib} MiB  ${installed.dir}`,
    );
  }
}

async function lock(names: string[]): Promise<void> {
  for (const runtime of selected(names)) {
    const dir = lockfileDir(runtime.name);
    const manifest = `${JSON.stringify(runtimeManifest(runtime), null, 2)}\n`;
    const scratch = await mkdtemp(join(tmpdir(), `vigil-lock-${runtime.name}-`));
    try {
      await writeFile(join(scratch, 'package.json'), manifest);
      await run('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], {
        cwd: scratch,
        timeout: 300_000,
      });
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'package.json'), manifest);
      await writeFile(join(dir, 'package-lock.json'), await readFile(join(scratch, 'package-lock.json')));
      console.log(`${runtime.name}: wrote ${dir}/package.json and package-lock.json`);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
}

async function browser(names: string[]): Promise<void> {
  for (const runtime of selected(names)) {
    const installed = await findInstalled(root, runtime.name);
    if (!installed) {
      console.log(`${runtime.name}: not installed under ${root}`);
      process.exitCode = 1;
      continue;
    }
    const probe = await probeChromium(installed, config.CHROMIUM_PATH);
    const found = probe.ok
      ? { chromium: 'SUPPORTED', chromiumVersion: chromiumMajor(probe.chromiumVersion ?? '') }
      : { chromium: 'UNSUPPORTED', reason: probe.error };
    const recorded = runtime.browserSupport;
    const agrees =
      recorded.chromium === found.chromium && (!probe.ok || recorded.chromiumVersion === found.chromiumVersion);
    console.log(
      `${runtime.name}: ${JSON.stringify(found)}${agrees ? '' : `  (catalogue says ${JSON.stringify(recorded)})`}`,
    );
    if (!agrees) process.exitCode = 1;
  }
}

const [command, ...names] = process.argv.slice(2);
const commands: Record<string, (names: string[]) => Promise<void>> = { install, lock, browser };
const chosen = command ? commands[command] : undefined;
if (!chosen) {
  console.error('usage: tsx scripts/runtimes.ts install|lock|browser [name…]');
  process.exit(2);
}
chosen(names).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
