import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { services } from '#test-support';
import { leftoverProcesses, requireSandbox, runScript, testRuntimeDir } from './test-fixture.ts';
import type { Sandbox } from './types.ts';

// Each attack passes only when it fails; a normal run after them proves the runner stayed healthy.
const CANARY = `canary-${process.pid}-${Date.now()}`;
let sandbox: Sandbox;
let runtimeDir: string;
let dataDir: string;
const KEY = `secret-key-${Date.now()}`;

beforeAll(async () => {
  process.env.VIGIL_SANDBOX_TEST_CANARY = CANARY;
  sandbox = await requireSandbox();
  runtimeDir = testRuntimeDir();
  dataDir = mkdtempSync(join(tmpdir(), 'vigil-data-'));
  writeFileSync(join(dataDir, 'encryption.key'), KEY);
});
afterEach(() => {
  expect(leftoverProcesses()).toEqual([]);
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(runtimeDir, { recursive: true, force: true });
});

const run = (code: string, overrides = {}) => runScript(sandbox, runtimeDir, code, overrides);

/** A script that tries to read each path and prints what happened, one JSON object per path. */
const readEach = (paths: string[]) => `
const fs = require('fs');
for (const p of ${JSON.stringify(paths)}) {
  try { console.log(JSON.stringify({ p, ok: true, text: fs.readFileSync(p, 'utf8').slice(0, 4000) })); }
  catch (e) { console.log(JSON.stringify({ p, ok: false, code: e.code })); }
}`;

const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('sandbox isolation', () => {
  it('runs a script as an unprivileged user in /work and copies back the regular files named', async () => {
    const { outcome, workDir } = await run(
      `
      const fs = require('fs');
      fs.writeFileSync('/work/result.json', JSON.stringify({ uid: process.getuid(), cwd: process.cwd() }));
      fs.symlinkSync('/etc/passwd', '/work/link');
      fs.writeFileSync('/work/unnamed.txt', 'stays in the sandbox');
      console.log('hello from the sandbox');`,
      { copyBack: ['result.json', 'link'] },
    );
    expect(outcome).toMatchObject({ exitCode: 0, stdout: 'hello from the sandbox\n', truncated: false });
    expect(JSON.parse(readFileSync(join(workDir, 'result.json'), 'utf8'))).toEqual({ uid: 65534, cwd: '/work' });
    // A symlink planted for the runner to follow never leaves the sandbox.
    expect(() => readFileSync(join(workDir, 'link'))).toThrow(/ENOENT/);
    expect(() => readFileSync(join(workDir, 'unnamed.txt'))).toThrow(/ENOENT/);
    rmSync(workDir, { recursive: true, force: true });
  });

  it('what it leaves in /work cannot break the copy back: a non-UTF-8 name, nesting past PATH_MAX', async () => {
    const { outcome, workDir } = await run(
      `
      const fs = require('fs'); fs.mkdirSync('/work/out');
      fs.writeFileSync(Buffer.from('/work/out/bad\\xff\\xfe.txt', 'latin1'), 'x');
      process.chdir('/work/out'); for (let i = 0; i < 2100; i++) { fs.mkdirSync('d'); process.chdir('d'); }
      fs.writeFileSync('f', 'x'); fs.writeFileSync('/work/out/ok.txt', 'kept'); console.log('left it');`,
      { copyBack: ['out'] },
    );
    expect(outcome).toMatchObject({ exitCode: 0, stdout: 'left it\n' });
    expect(readFileSync(join(workDir, 'out', 'ok.txt'), 'utf8')).toBe('kept');
    rmSync(workDir, { recursive: true, force: true });
  });

  it('cannot read DATA_DIR/encryption.key, /etc/shadow, the repository or /root', async () => {
    const paths = [join(dataDir, 'encryption.key'), '/etc/shadow', '/work/main/package.json', '/root/.bashrc'];
    expect(readFileSync(paths[0]!, 'utf8')).toBe(KEY);
    const { outcome } = await run(readEach(paths));
    expect(outcome.exitCode).toBe(0);
    for (const result of lines(outcome.stdout)) expect(result).toMatchObject({ ok: false, code: 'ENOENT' });
    expect(outcome.stdout).not.toContain(KEY);
  });

  it('cannot write outside /work and /tmp, nor make a user namespace of its own', async () => {
    const { outcome } = await run(`
      const fs = require('fs'); const { spawnSync } = require('child_process');
      for (const p of ['/usr/x', '/runtime/x', '/x', '/etc/x', '/.vigil/x', '/proc/sys/kernel/hostname'])
        try { fs.writeFileSync(p, 'x'); console.log(p, 'written'); } catch (e) { console.log(p, e.code); }
      const unshare = spawnSync('/usr/bin/unshare', ['--user', '--map-root-user', '/usr/bin/id', '-u']);
      console.log('unshare', unshare.status, String(unshare.stdout).trim());`);
    const lines = outcome.stdout.trim().split('\n');
    expect(lines).toHaveLength(7);
    for (const line of lines.slice(0, 6)) expect(line).toMatch(/ (EROFS|EACCES|EPERM)$/);
    expect(lines[6]).not.toBe('unshare 0 0');
    expect(lines[6]).toMatch(/^unshare [1-9]/);
  });

  it('meets a seccomp filter: keyrings, ptrace, bpf, perf, userfaultfd and io_uring are shut', async () => {
    // Python's ctypes makes raw system calls; PTRACE_TRACEME (ptrace 0) would succeed without the filter.
    const py = [
      'import ctypes, os',
      'libc = ctypes.CDLL(None, use_errno=True)',
      "for name, nr in [('keyctl', 250), ('ptrace', 101), ('bpf', 321), ('perf_event_open', 298),",
      "                 ('userfaultfd', 323), ('io_uring_setup', 425), ('getpid', 39)]:",
      '    r = libc.syscall(nr, 0, 0, 0, 0, 0)',
      "    print(name, 'ok' if r >= 0 else os.strerror(ctypes.get_errno()))",
    ].join('\n');
    const { outcome } = await run('', { command: ['/usr/bin/python3', '-c', py] });
    expect(outcome.stdout.trim().split('\n')).toEqual([
      'keyctl Operation not permitted',
      'ptrace Operation not permitted',
      'bpf Operation not permitted',
      'perf_event_open Operation not permitted',
      'userfaultfd Operation not permitted',
      'io_uring_setup Function not implemented',
      'getpid ok',
    ]);
  });

  it("sees only its own pid namespace: /proc/1 is the sandbox's init, with no server environment", async () => {
    const { outcome } = await run(`
      const fs = require('fs');
      const pids = fs.readdirSync('/proc').filter((n) => /^\\d+$/.test(n));
      const read = (p) => { try { return fs.readFileSync(p, 'utf8'); } catch (e) { return e.code; } };
      console.log(JSON.stringify({ pids, cmd1: read('/proc/1/cmdline'), env1: read('/proc/1/environ'), ppid: process.ppid }));`);
    const seen = JSON.parse(outcome.stdout);
    // bwrap's init and the script (the egress bridge runs inside it): nothing of the host's.
    expect(seen.pids.length).toBeLessThanOrEqual(4);
    expect(seen.cmd1.split('\0')[0]).toMatch(/bwrap$/);
    expect(seen.cmd1).not.toContain(tmpdir());
    // The launcher starts bwrap with an empty environment (the shell adds only PWD=/).
    expect(seen.env1.split('\0').filter(Boolean)).toEqual(['PWD=/']);
    expect(outcome.stdout).not.toContain(CANARY);
  });

  it("gets only the env it is given, never the server's", async () => {
    expect(process.env.VIGIL_SANDBOX_TEST_CANARY).toBe(CANARY);
    const { outcome } = await run('console.log(JSON.stringify(process.env))', { env: { CHECK_VAR: 'v1' } });
    const env = JSON.parse(outcome.stdout);
    expect(outcome.stdout).not.toContain(CANARY);
    expect(Object.keys(env).sort()).toEqual(
      [
        'CHECK_VAR',
        'HOME',
        'HTTPS_PROXY',
        'HTTP_PROXY',
        'NO_PROXY',
        'no_proxy',
        'PATH',
        'PWD',
        'TMPDIR',
        'VIGIL_EGRESS_PROXY',
        'http_proxy',
        'https_proxy',
      ].sort(),
    );
    expect(env.CHECK_VAR).toBe('v1');
  });

  it('process.binding spawn_sync runs only inside the sandbox, as nobody, seeing nothing outside', async () => {
    const { outcome } = await run(`
      const spawnSync = process.binding('spawn_sync');
      const result = spawnSync.spawn({
        file: '/bin/sh',
        args: ['sh', '-c', 'id -u; cat /etc/shadow; ls /work/main; ls ${dataDir}; echo done'],
        stdio: [{ type: 'pipe', readable: true, writable: false }, { type: 'pipe', readable: true, writable: true }, { type: 'pipe', readable: true, writable: true }],
        envPairs: [],
      });
      console.log(JSON.stringify({ status: result.status, out: result.output.map((b) => b && b.toString()) }));`);
    const result = JSON.parse(outcome.stdout);
    const [, stdout, stderr] = result.out as string[];
    expect(stdout).toBe('65534\ndone\n');
    expect(stderr).toContain('/etc/shadow: No such file');
    expect(stderr).toContain('/work/main');
    expect(stderr).not.toContain(KEY);
  });

  it('cannot kill the runner: its pid does not exist in the sandbox', async () => {
    const { outcome } = await run(
      `try { process.kill(Number(process.env.RUNNER_PID), 'SIGKILL'); console.log('sent'); }
       catch (e) { console.log(e.code); }
       try { process.kill(-1, 'SIGKILL'); } catch (e) { console.log('kill-all', e.code); }`,
      { env: { RUNNER_PID: String(process.pid) } },
    );
    expect(outcome.stdout.split('\n')[0]).toBe('ESRCH');
    expect(process.kill(process.pid, 0)).toBe(true);
  });
});

describe('sandbox network: fails closed', () => {
  it('raw TCP to Redis on the host loopback fails; the host answers it directly', async () => {
    const port = Number(new URL(services().REDIS_URL).port || 6379);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve();
      });
      socket.on('error', reject);
    });
    const { outcome } = await run(`
      const net = require('net');
      const tryOne = (host) => new Promise((resolve) => {
        const s = net.connect({ host, port: ${port}, timeout: 2000 }, () => { s.destroy(); resolve(host + ' connected'); });
        s.on('error', (e) => resolve(host + ' ' + e.code));
        s.on('timeout', () => { s.destroy(); resolve(host + ' timeout'); });
      });
      (async () => { for (const h of ['127.0.0.1', '::1', '10.0.2.2', '1.1.1.1']) console.log(await tryOne(h)); })();`);
    const results = outcome.stdout.trim().split('\n');
    expect(results).toHaveLength(4);
    for (const line of results) expect(line).not.toContain('connected');
    expect(results[0]).toBe('127.0.0.1 ECONNREFUSED');
  });

  it('has no DNS of its own', async () => {
    const { outcome } = await run(`require('dns').lookup('example.com', (e, a) => console.log(e ? e.code : a));`);
    expect(outcome.stdout.trim()).toMatch(/^E[A-Z_]+$/);
  });
});

describe('the process umask', () => {
  it('a sandbox made and run under umask 077 (the standalone server sets it) still runs scripts', async () => {
    const previous = process.umask(0o077);
    let strict: Sandbox | undefined;
    try {
      // A new sandbox: its state dir, views and cgroups are all made under this umask.
      strict = await requireSandbox();
      const { outcome } = await runScript(
        strict,
        runtimeDir,
        `console.log(require('fs').readFileSync('/etc/passwd', 'utf8').split(':')[0])`,
      );
      expect(outcome, JSON.stringify(outcome)).toMatchObject({ exitCode: 0, stdout: 'nobody\n' });
    } finally {
      process.umask(previous);
      await strict?.close();
    }
  });
});
