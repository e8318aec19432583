import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { leftoverProcesses, processesWith, requireSandbox, runScript, testRuntimeDir } from './test-fixture.ts';
import type { Sandbox } from './types.ts';

// Resource attacks: each must end in a kill or a refused write, never harm the host, and leave nothing behind.
let sandbox: Sandbox;
let runtimeDir: string;

beforeAll(async () => {
  sandbox = await requireSandbox();
  runtimeDir = testRuntimeDir();
});
afterEach(() => {
  expect(leftoverProcesses()).toEqual([]);
});
afterAll(async () => {
  await sandbox.close();
  rmSync(runtimeDir, { recursive: true, force: true });
});

const run = (code: string, overrides = {}) => runScript(sandbox, runtimeDir, code, overrides);

const healthy = async () => {
  const { outcome } = await run('console.log(6 * 7)');
  expect(outcome).toMatchObject({ exitCode: 0, stdout: '42\n' });
};

describe('sandbox limits', () => {
  it('kills an infinite loop at the wall-clock budget', async () => {
    const { outcome } = await run('for (;;) {}', { timeoutMs: 1500 });
    expect(outcome.killed).toBe('timeout');
    expect(outcome.exitCode).not.toBe(0);
    await healthy();
  });

  it('kills the whole tree at the budget, children and grandchildren included', async () => {
    const { outcome } = await run(
      `const { spawn } = require('child_process');
       spawn('/bin/sh', ['-c', 'sleep 1000 & sleep 1000 & wait'], { stdio: 'ignore' });
       spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore', detached: true }).unref();
       console.log('spawned'); setInterval(() => {}, 1000);`,
      { timeoutMs: 1500 },
    );
    expect(outcome).toMatchObject({ killed: 'timeout', stdout: 'spawned\n' });
  });

  it('contains a fork bomb to its process cap and kills it at the budget', async () => {
    const { outcome } = await run(
      `require('child_process').spawn('/bin/sh', ['-c', 'f() { f | f & }; f'], { stdio: 'ignore' });
       setInterval(() => {}, 1000);`,
      { timeoutMs: 3000, maxProcesses: 64 },
    );
    expect(outcome.killed).toBe('timeout');
    await healthy();
  });

  it('kills a 4 GB allocation at the memory cap', async () => {
    const { outcome } = await run(
      `const held = []; for (let i = 0; i < 64; i++) { held.push(Buffer.alloc(64 * 1024 * 1024, 1)); }
       console.log('allocated 4 GB');`,
      { memoryBytes: 256 * 1024 * 1024 },
    );
    expect(outcome.stdout).not.toContain('allocated');
    expect(outcome.killed).toBe('memory');
    await healthy();
  });

  it.each(['/tmp', '/work', '/dev/shm'])('refuses a 10 GB write to %s at the disk cap', async (dir) => {
    const cap = 64 * 1024 * 1024;
    const { outcome } = await run(
      `const fs = require('fs'); const chunk = Buffer.alloc(1024 * 1024, 7); let written = 0;
       process.on('SIGXFSZ', () => {});
       try { const fd = fs.openSync('${dir}/big', 'w');
             for (let i = 0; i < 10 * 1024; i++) { fs.writeSync(fd, chunk); written += chunk.length; }
             console.log('wrote 10 GB'); }
       catch (e) { console.log(JSON.stringify({ code: e.code, written })); }`,
      { diskBytes: cap, memoryBytes: 512 * 1024 * 1024 },
    );
    expect(outcome.stdout).not.toContain('wrote 10 GB');
    const result = JSON.parse(outcome.stdout);
    expect(['ENOSPC', 'EFBIG']).toContain(result.code);
    expect(result.written).toBeLessThanOrEqual(256 * 1024 * 1024);
    await healthy();
  });

  it('cuts 100 MB of stdout at the output cap, truncated', async () => {
    const { outcome } = await run(
      `const chunk = 'x'.repeat(1024 * 1024);
       let i = 0; const write = () => { while (i < 100) { i++; if (!process.stdout.write(chunk)) return process.stdout.once('drain', write); } };
       write();`,
      { maxOutputBytes: 256 * 1024 },
    );
    expect(outcome).toMatchObject({ killed: 'output', truncated: true });
    expect(outcome.stdout.length).toBe(256 * 1024);
    await healthy();
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const { outcome } = await run('setInterval(() => {}, 1000)', { signal: controller.signal });
    expect(outcome.killed).toBe('aborted');
  });

  it('dies with its runner: SIGKILL the runner process and no sandboxed process survives', async () => {
    const token = `die-with-parent-${process.pid}-${Date.now()}`;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./test-runner-child.ts', import.meta.url)), runtimeDir, token],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`child runner exited early with ${code}`)));
    });
    const running = processesWith(token);
    expect(running.length).toBeGreaterThanOrEqual(2);
    child.kill('SIGKILL');
    let left = running;
    for (let i = 0; i < 100 && left.length > 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      left = processesWith(token);
    }
    expect(left).toEqual([]);
    await healthy();
  });
});

describe('without cgroups (hosts with no writable cgroup v1): the fallbacks', () => {
  let fallback: Sandbox;
  beforeAll(async () => {
    fallback = await requireSandbox({ useCgroups: false });
  });
  afterAll(() => fallback.close());

  it('kills a 4 GB allocation by watching the tree resident memory', async () => {
    const { outcome } = await runScript(
      fallback,
      runtimeDir,
      `const held = []; for (let i = 0; i < 64; i++) { held.push(Buffer.alloc(64 * 1024 * 1024, 1)); }
       console.log('allocated 4 GB');`,
      { memoryBytes: 256 * 1024 * 1024 },
    );
    expect(outcome.stdout).not.toContain('allocated');
    expect(outcome.killed).toBe('memory');
  });

  it('contains a fork bomb with RLIMIT_NPROC and kills it at the budget', async () => {
    const { outcome } = await runScript(
      fallback,
      runtimeDir,
      `require('child_process').spawn('/bin/sh', ['-c', 'f() { f | f & }; f'], { stdio: 'ignore' });
       setInterval(() => {}, 1000);`,
      { timeoutMs: 3000, maxProcesses: 64 },
    );
    expect(outcome.killed).toBe('timeout');
    const { outcome: after } = await runScript(fallback, runtimeDir, 'console.log(1 + 1)');
    expect(after).toMatchObject({ exitCode: 0, stdout: '2\n' });
  });
});

describe('per-run cgroups', () => {
  it('are removed after each run', async () => {
    await healthy();
    const own = readFileSync('/proc/self/cgroup', 'utf8').match(/:memory:(.*)$/m)?.[1] ?? '/';
    const dir = `/sys/fs/cgroup/memory${own === '/' ? '' : own}/vigil-sandbox-${process.pid}`;
    expect(readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory())).toEqual([]);
  });
});
