import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '#core';
import { loadCatalogue } from './catalogue.ts';
import {
  createRuntimeInstallations,
  findInstalled,
  installMissing,
  installRuntime,
  installStatus,
  MARKER_FILE,
} from './install.ts';

const run = promisify(execFile);
const logger = createLogger({ level: 'silent' });
const catalogue = loadCatalogue();
const NAME = '2025.04';
const runtime = catalogue.find((candidate) => candidate.name === NAME)!;
const root = mkdtempSync(join(tmpdir(), 'vigil-runtimes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function sharedRoot(): string {
  const provided = inject('runtimes');
  if ('error' in provided) throw new Error(provided.error);
  return provided.root;
}

const leftovers = () => readdirSync(root).filter((entry) => entry !== NAME);

// Real `npm ci` from the committed lockfile against the npm registry: 5 to 25 s per install here.
describe('installRuntime (npm ci from the committed lockfile)', { timeout: 300_000 }, () => {
  it('two installers at once into an empty root leave one complete install whose Node is the catalogued one', async () => {
    const [a, b] = await Promise.all([installRuntime(root, NAME, { logger }), installRuntime(root, NAME, { logger })]);
    expect(a).toEqual(b);
    expect(a.dir).toBe(join(root, NAME));
    const { stdout } = await run(a.nodeBinary, ['--version']);
    expect(stdout.trim()).toBe(runtime.nodeJsVersion);
    expect(a.nodeVersion).toBe(runtime.nodeJsVersion);
    // Dependencies resolve from the install with its own Node, at the catalogued versions.
    const versions = await run(
      a.nodeBinary,
      [
        '-p',
        "JSON.stringify(['playwright','@playwright/test','axios','lodash'].map((d) => require(d + '/package.json').version))",
      ],
      { cwd: a.dir },
    );
    expect(JSON.parse(versions.stdout)).toEqual(
      ['playwright', '@playwright/test', 'axios', 'lodash'].map((d) => runtime.dependencies[d]),
    );
    // No temp directory or lock is left behind; the install is readable by other users (the sandbox).
    expect(leftovers()).toEqual([]);
    expect(statSync(a.dir).mode & 0o755).toBe(0o755);
  });

  it('a second install of the same lockfile is a no-op', async () => {
    const before = readFileSync(join(root, NAME, MARKER_FILE), 'utf8');
    const again = await installRuntime(root, NAME, { logger });
    expect(again.dir).toBe(join(root, NAME));
    expect(readFileSync(join(root, NAME, MARKER_FILE), 'utf8')).toBe(before);
  });

  it('an install made from another lockfile is not "installed" and is replaced; a killed installer\'s leftovers go', async () => {
    mkdirSync(join(root, `.tmp-${NAME}-killed`));
    writeFileSync(join(root, `.tmp-${NAME}-killed`, 'package.json'), '{}');
    const markerPath = join(root, NAME, MARKER_FILE);
    const marker = JSON.parse(readFileSync(markerPath, 'utf8'));
    writeFileSync(markerPath, JSON.stringify({ ...marker, lockfileSha256: '0'.repeat(64) }));
    expect(await findInstalled(root, NAME)).toBeUndefined();
    const reinstalled = await installRuntime(root, NAME, { logger });
    const fresh = JSON.parse(readFileSync(markerPath, 'utf8'));
    expect(fresh.lockfileSha256).toBe(marker.lockfileSha256);
    expect(fresh.installedAt).not.toBe(marker.installedAt);
    expect((await run(reinstalled.nodeBinary, ['--version'])).stdout.trim()).toBe(runtime.nodeJsVersion);
    expect(leftovers()).toEqual([]);
  });

  it('an install without its marker (interrupted) is not "installed"', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'vigil-runtimes-partial-'));
    try {
      writeFileSync(join(scratch, 'placeholder'), '');
      expect(await findInstalled(scratch, NAME)).toBeUndefined();
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('reports what is installed and what is missing', async () => {
    const installations = createRuntimeInstallations(root);
    expect(await installations.isInstalled(NAME)).toBe(true);
    expect(await installations.isInstalled('2026.04')).toBe(false);
    expect(await installations.isInstalled('2024.09')).toBe(false);
    const status = await installStatus(root, { now: new Date('2026-11-25T12:00:00Z') });
    expect(status.installed.map((installed) => installed.name)).toEqual([NAME]);
    expect(status.missing).toEqual(['2026.04']);
  });

  it('refuses a removed runtime (no lockfile) and an unknown one', async () => {
    await expect(installRuntime(root, '2024.09', { logger })).rejects.toThrow(
      /2024\.09 has no lockfile.*not installable/,
    );
    await expect(installRuntime(root, '1999.01', { logger })).rejects.toThrow(/not in the catalogue/);
    expect(await findInstalled(root, '../etc')).toBeUndefined();
  });
});

describe('installMissing', () => {
  it('installs exactly the runtimes not REMOVED on the given day (already installed by the test setup: a no-op)', async () => {
    const shared = sharedRoot();
    const today = await installMissing(shared, { logger, now: new Date('2026-11-25T12:00:00Z') });
    expect(today.map((installed) => installed.name)).toEqual(['2026.04', '2025.04']);
    const later = await installMissing(shared, { logger, now: new Date('2027-05-01T12:00:00Z') });
    expect(later.map((installed) => installed.name)).toEqual(['2026.04']);
    for (const installed of today) {
      const { stdout } = await run(installed.nodeBinary, ['--version']);
      expect(stdout.trim()).toBe(catalogue.find((r) => r.name === installed.name)?.nodeJsVersion);
    }
  });
});
