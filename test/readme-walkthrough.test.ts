import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, eventually } from '#test-processes';

/**
 * The README's walkthrough, run as written: every ```sh walkthrough block, extracted from README.md
 * and then docs/cli.md (where it continues) at test time, in order, in one bash (set -euo pipefail), against `node dist/standalone.js` (what
 * `npm start` runs) on a fresh DATA_DIR, with a fresh HOME (so a fresh CLI config directory). The
 * only line not taken from the README is the `export …` line, which comes from the server's banner,
 * exactly as the README tells the reader to paste it.
 */
const root = fileURLToPath(new URL('../', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'vigil-readme-'));
const dataDir = join(scratch, 'data');
const home = join(scratch, 'home');

export function walkthroughBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh walkthrough\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

describe('README walkthrough', () => {
  let server: ReturnType<typeof spawn>;
  let output = '';

  beforeAll(async () => {
    execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: root, stdio: 'pipe' });
    server = spawn(process.execPath, ['dist/standalone.js'], {
      cwd: root,
      // VIGIL_ALLOW_PRIVATE_TARGETS: the README starts Vigil with it, for step 6's loopback check.
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        DATA_DIR: dataDir,
        PORT: String(await freePort()),
        VIGIL_ALLOW_PRIVATE_TARGETS: 'true',
        // Set when this runs on Node 22 or 24 (test/platform/node-versions.test.ts): where their SQLite driver is.
        ...(process.env.NODE_PATH ? { NODE_PATH: process.env.NODE_PATH } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    server.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually(
      async () => output,
      (out) => /^\s+export VIGIL_API_URL=\S+ VIGIL_ADMIN_KEY=\S+$/m.test(out) || server.exitCode !== null,
      90_000,
    );
  }, 180_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(scratch, { recursive: true, force: true });
  });

  it('runs every walkthrough command as written, and each one works', async () => {
    // The README's steps, then those the CLI guide continues with, in the same shell.
    const readme = walkthroughBlocks(readFileSync(join(root, 'README.md'), 'utf8'));
    const guide = walkthroughBlocks(readFileSync(join(root, 'docs', 'cli.md'), 'utf8'));
    expect(readme.length).toBeGreaterThanOrEqual(5);
    expect(guide.length).toBeGreaterThanOrEqual(2);
    const blocks = [...readme, ...guide];
    const exportLine = /^\s+(export VIGIL_API_URL=\S+ VIGIL_ADMIN_KEY=\S+)$/m.exec(output)?.[1];
    expect(exportLine, output).toBeDefined();
    const script = ['set -euo pipefail', exportLine, ...blocks].join('\n');
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn('bash', ['-c', script], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: home, LANG: 'C.UTF-8' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/^User +ops@acme.test$/m); // whoami shows the email
    expect(run.stdout).toMatch(/^Role +OWNER$/m);
    expect(run.stdout).toMatch(/Read 1 result: 1 accepted, 0 rejected/);
    expect(run.stdout).toMatch(/Subscribed Ops to check /);
    // Step 6: Vigil ran the check itself, and recorded the heartbeat's ping.
    expect(run.stdout).toMatch(/PASSED from local in \d+ ms, HTTP 200/);
    expect(run.stdout).toMatch(/Ping recorded for check .*: RECEIVED/);
    // Step 8: the script ran in the sandbox, its step passed and its log came back; then it deployed.
    expect(run.stdout).toMatch(/GET \/health/);
    expect(run.stdout).toMatch(/health is ok/);
    expect(run.stdout).toMatch(/Vigil health \(script\)/);
    // VIGIL_PUBLIC_URL unset: RESULT_LINK starts at the address the server really listens on.
    const apiUrl = /VIGIL_API_URL=(\S+)/.exec(exportLine!)![1]!;
    expect(run.stdout).toContain(`"RESULT_LINK":"${apiUrl}/v1/check-results/`);
    // The login went to the fresh HOME's config directory, not anywhere else.
    expect(existsSync(join(home, '.config', 'vigil', 'config.json'))).toBe(true);
  }, 240_000);
});
