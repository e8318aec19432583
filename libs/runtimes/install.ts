import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import {
  access,
  chmod,
  constants,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { InternalError, UnavailableError, ValidationError, type Logger } from '#core';
import { loadCatalogue, RuntimeCatalogue, type Runtime } from './catalogue.ts';
import { withInstallLock } from './install-lock.ts';
import { NODE_PACKAGE } from './manifest.ts';
import { lockfileDir, RUNTIME_NAME } from './paths.ts';

const run = promisify(execFile);

/** Written last into a finished install: which lockfile it came from and the Node it verified. */
export const MARKER_FILE = '.vigil-runtime.json';
const markerSchema = z.object({
  name: z.string(),
  lockfileSha256: z.string(),
  nodeVersion: z.string(),
  installedAt: z.string(),
});

export interface InstalledRuntime {
  name: string;
  /** The install's root: its node_modules holds the runtime's dependencies. */
  dir: string;
  nodeBinary: string;
  nodeVersion: string;
}

export interface InstallOptions {
  logger: Logger;
  /** Stops an install in progress (a runner shutting down); the half-built directory is removed. */
  signal?: AbortSignal;
  /** The catalogue to install from; the bundled one by default. */
  runtimes?: Runtime[];
}

function nodeBinaryOf(dir: string): string {
  return join(dir, 'node_modules', NODE_PACKAGE, 'bin', 'node');
}

async function lockfileHash(name: string): Promise<string | undefined> {
  try {
    const text = await readFile(join(lockfileDir(name), 'package-lock.json'));
    return createHash('sha256').update(text).digest('hex');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The runtime as installed under root, if its install is complete and made from today's lockfile. */
export async function findInstalled(root: string, name: string): Promise<InstalledRuntime | undefined> {
  if (!RUNTIME_NAME.test(name)) return undefined;
  const hash = await lockfileHash(name);
  if (!hash) return undefined;
  const dir = join(root, name);
  let marker: z.infer<typeof markerSchema>;
  try {
    marker = markerSchema.parse(JSON.parse(await readFile(join(dir, MARKER_FILE), 'utf8')));
  } catch {
    return undefined;
  }
  if (marker.name !== name || marker.lockfileSha256 !== hash) return undefined;
  const nodeBinary = nodeBinaryOf(dir);
  try {
    await access(nodeBinary, constants.X_OK);
  } catch {
    return undefined;
  }
  return { name, dir, nodeBinary, nodeVersion: marker.nodeVersion };
}

/** Answers "is this runtime installed here?" for the API, from the install root's markers. */
export interface RuntimeInstallations {
  readonly root: string;
  isInstalled(name: string): Promise<boolean>;
}

export function createRuntimeInstallations(root: string): RuntimeInstallations {
  return { root, isInstalled: async (name) => (await findInstalled(root, name)) !== undefined };
}

async function npmCi(dir: string, signal?: AbortSignal): Promise<void> {
  // The inherited environment stays: npm needs the operator's config (HOME, proxy, registry).
  // Browsers are never downloaded; scripts drive Debian's chromium. The umask is set because the
  // sandbox reads the install as another user, and the standalone server runs with umask 077.
  const command =
    'umask 022 && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 exec npm ci --ignore-scripts --no-audit --no-fund --loglevel=error';
  try {
    await run('sh', ['-c', command], {
      cwd: dir,
      timeout: 10 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    throw new UnavailableError(`npm ci failed in ${dir}: ${stderr.slice(-2000) || (error as Error).message}`, {
      cause: error,
    });
  }
}

/** The install is what the catalogue says: its Node prints the catalogued version, each dependency is exact. */
async function verify(dir: string, runtime: Runtime): Promise<string> {
  const { stdout } = await run(nodeBinaryOf(dir), ['--version'], { timeout: 30_000 });
  const nodeVersion = stdout.trim();
  if (nodeVersion !== runtime.nodeJsVersion)
    throw new InternalError(
      `runtime ${runtime.name}: node prints ${nodeVersion}, the catalogue names ${runtime.nodeJsVersion}`,
    );
  for (const [dependency, version] of Object.entries(runtime.dependencies)) {
    const manifest = JSON.parse(await readFile(join(dir, 'node_modules', dependency, 'package.json'), 'utf8'));
    if (manifest.version !== version)
      throw new InternalError(
        `runtime ${runtime.name}: ${dependency} is ${manifest.version}, the catalogue names ${version}`,
      );
  }
  return nodeVersion;
}

/** Moves a finished install into place; an older install (another lockfile) is replaced. */
async function swapIn(root: string, tmp: string, name: string): Promise<void> {
  const target = join(root, name);
  try {
    await rename(tmp, target);
    return;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
  }
  if (await findInstalled(root, name)) {
    // Another installer finished the same lockfile first: theirs is as good as ours.
    await rm(tmp, { recursive: true, force: true });
    return;
  }
  const trash = join(root, `.old-${name}-${randomUUID()}`);
  await rename(target, trash);
  await rename(tmp, target);
  await rm(trash, { recursive: true, force: true });
}

/** Half-done installs of a killed installer (~200 MB each). Only called under the runtime's lock. */
async function removeLeftovers(root: string, name: string, log: Logger): Promise<void> {
  for (const entry of await readdir(root)) {
    if (!entry.startsWith(`.tmp-${name}-`) && !entry.startsWith(`.old-${name}-`)) continue;
    log.warn({ entry }, 'removing a runtime install left behind by an interrupted installer');
    await rm(join(root, entry), { recursive: true, force: true });
  }
}

/**
 * Installs one runtime under root from its committed lockfile with `npm ci`, unless that exact
 * lockfile is already installed there. The install is built in a private directory, verified, and
 * renamed into place, so a reader never sees half an install.
 */
export async function installRuntime(root: string, name: string, options: InstallOptions): Promise<InstalledRuntime> {
  const runtime = (options.runtimes ?? loadCatalogue()).find((candidate) => candidate.name === name);
  if (!runtime) throw new ValidationError(`runtime "${name}" is not in the catalogue`);
  if (!(await lockfileHash(name)))
    throw new ValidationError(
      `runtime ${name} has no lockfile (runtimes/${name}/package-lock.json): it is not installable`,
    );
  const ready = await findInstalled(root, name);
  if (ready) return ready;
  await mkdir(root, { recursive: true });
  return withInstallLock(
    join(root, `.${name}.lock`),
    async () => {
      const raced = await findInstalled(root, name);
      if (raced) return raced;
      const log = options.logger.child({ runtime: name });
      await removeLeftovers(root, name, log);
      const started = Date.now();
      log.info({ root }, 'installing runtime');
      const tmp = await mkdtemp(join(root, `.tmp-${name}-`));
      // mkdtemp makes it private; the sandbox reads it as another user.
      await chmod(tmp, 0o755);
      try {
        const source = lockfileDir(name);
        const lockfile = await readFile(join(source, 'package-lock.json'));
        await copyFile(join(source, 'package.json'), join(tmp, 'package.json'));
        await writeFile(join(tmp, 'package-lock.json'), lockfile);
        await npmCi(tmp, options.signal);
        const nodeVersion = await verify(tmp, runtime);
        const marker = {
          name,
          lockfileSha256: createHash('sha256').update(lockfile).digest('hex'),
          nodeVersion,
          installedAt: new Date().toISOString(),
        };
        await writeFile(join(tmp, MARKER_FILE), JSON.stringify(marker, null, 2));
        await swapIn(root, tmp, name);
      } catch (error) {
        await rm(tmp, { recursive: true, force: true });
        throw error;
      }
      const installed = await findInstalled(root, name);
      if (!installed) throw new InternalError(`runtime ${name}: installed, yet its marker does not match its lockfile`);
      log.info({ dir: installed.dir, ms: Date.now() - started }, 'runtime installed');
      return installed;
    },
    { logger: options.logger },
  );
}

/**
 * Installs every runtime that is not REMOVED on `now`, one after another (each is ~200 MB of
 * downloads). Tries them all; throws afterwards naming each that failed.
 */
export async function installMissing(
  root: string,
  options: { logger: Logger; now: Date; runtimes?: Runtime[]; signal?: AbortSignal },
): Promise<InstalledRuntime[]> {
  const catalogue = new RuntimeCatalogue(options.runtimes ?? loadCatalogue(), () => options.now);
  const installed: InstalledRuntime[] = [];
  const failures: string[] = [];
  for (const runtime of catalogue.usable()) {
    if (options.signal?.aborted) break;
    try {
      installed.push(
        await installRuntime(root, runtime.name, {
          logger: options.logger,
          runtimes: catalogue.catalogued,
          ...(options.signal ? { signal: options.signal } : {}),
        }),
      );
    } catch (error) {
      options.logger.error({ err: error, runtime: runtime.name }, 'runtime install failed');
      failures.push(`${runtime.name}: ${(error as Error).message}`);
    }
  }
  if (failures.length > 0) throw new UnavailableError(`runtimes not installed: ${failures.join('; ')}`);
  return installed;
}

export interface InstallStatus {
  installed: InstalledRuntime[];
  /** Runtimes not REMOVED on `now` that are not installed under root: their script checks fail. */
  missing: string[];
}

/** What a process's /ready can report: which usable runtimes this host has, and which it lacks. */
export async function installStatus(
  root: string,
  options: { now: Date; runtimes?: Runtime[] },
): Promise<InstallStatus> {
  const catalogue = new RuntimeCatalogue(options.runtimes ?? loadCatalogue(), () => options.now);
  const status: InstallStatus = { installed: [], missing: [] };
  for (const runtime of catalogue.usable()) {
    const found = await findInstalled(root, runtime.name);
    if (found) status.installed.push(found);
    else status.missing.push(runtime.name);
  }
  return status;
}
