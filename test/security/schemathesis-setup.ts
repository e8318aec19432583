import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Pinned, so a new release never changes what the suite checks without a commit. */
export const SCHEMATHESIS_VERSION = '4.32.5';
const venv = resolve(import.meta.dirname, '../../.services/schemathesis/venv');
export const schemathesisBin = join(venv, 'bin', 'schemathesis');

/**
 * Installs schemathesis from PyPI into a venv under .services/ unless the pinned version is
 * already there (then this costs one `--version`, well under a second).
 */
export function ensureSchemathesis(): string {
  if (existsSync(schemathesisBin)) {
    const version = execFileSync(schemathesisBin, ['--version'], { encoding: 'utf8', timeout: 30_000 });
    if (version.includes(SCHEMATHESIS_VERSION)) return schemathesisBin;
  }
  if (!existsSync(join(venv, 'bin', 'pip'))) execFileSync('python3', ['-m', 'venv', venv], { stdio: 'inherit' });
  execFileSync(join(venv, 'bin', 'pip'), ['install', '--quiet', `schemathesis==${SCHEMATHESIS_VERSION}`], {
    stdio: 'inherit',
    timeout: 600_000,
  });
  return schemathesisBin;
}
