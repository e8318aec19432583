import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root: lockfiles are committed under runtimes/, installs default to .runtimes/. */
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** Runtime names are YYYY.MM; anything else never becomes a path. */
export const RUNTIME_NAME = /^\d{4}\.\d{2}$/;

/** Where runtimes are installed: the configured directory (VIGIL_RUNTIMES_DIR), else <repo>/.runtimes. */
export function runtimesRoot(configured?: string): string {
  return configured ? resolve(configured) : join(repoRoot, '.runtimes');
}

/** The committed package.json and package-lock.json a runtime is installed from. */
export function lockfileDir(name: string): string {
  if (!RUNTIME_NAME.test(name)) throw new Error(`not a runtime name: ${JSON.stringify(name)}`);
  return join(repoRoot, 'runtimes', name);
}
