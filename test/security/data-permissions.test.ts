import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// The embedded stores live in DATA_DIR: every file there holds tenants' data, so each is created
// 0600 (owner only), like the encryption key, even under a permissive umask. The real entry point
// is started, because the permissions come from the process, not from a test harness.

const root = mkdtempSync(join(tmpdir(), 'vigil-perm-'));
const dataDir = join(root, 'data');
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('data files are private to their owner', () => {
  it('creates every file in DATA_DIR 0600 and directories 0700, with umask 022', async () => {
    process.umask(0o022);
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/standalone/src/main.ts'], {
      cwd: resolve(import.meta.dirname, '../..'),
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const listening = new Promise<void>((done, fail) => {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (output.includes('api listening')) done();
      });
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('exit', (code) => fail(new Error(`vigil exited with ${code}: ${output.slice(-2000)}`)));
    });
    try {
      await listening;
    } finally {
      child.kill('SIGTERM');
      await new Promise((done) => child.once('close', done));
    }
    const entries = readdirSync(dataDir, { recursive: true, encoding: 'utf8' }).map((name) => join(dataDir, name));
    expect(entries.length).toBeGreaterThan(3);
    const open = entries
      .map((path) => ({ path, stat: statSync(path) }))
      .filter(({ stat }) => (stat.mode & 0o077) !== 0)
      .map(({ path, stat }) => `${path}: ${(stat.mode & 0o777).toString(8)}`);
    expect(open).toEqual([]);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
  }, 120_000);
});
