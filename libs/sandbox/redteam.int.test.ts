/*
 * Red-team suite of #sandbox (helper X): attacks an outside tester would try, each passing only when
 * the attack fails. Run against the real bubblewrap sandbox with a real installed runtime. Holes
 * found (with repro and suggested fixes) are in libs/sandbox/redteam-holes.int.test.ts until fixed.
 */
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOOK, PLANT, RAW_PROXY_CLIENT } from './redteam-clients.ts';
import {
  cleanWorkDirs,
  jsonLines,
  requireRedteamSandbox,
  requireRuntimeDir,
  runNode,
  startTarget,
  type Target,
} from './redteam-support.ts';
import { BACKSTOP_GRACE_MS } from './bwrap-args.ts';
import { leftoverProcesses, processesWith } from './test-fixture.ts';
import { EGRESS_MAX_CONNECTIONS, RUNTIME_NODE, type Sandbox } from './index.ts';

let sandbox: Sandbox;
let runtimeDir: string;
let target: Target;
let target6: Target;

beforeAll(async () => {
  sandbox = await requireRedteamSandbox();
  runtimeDir = (await requireRuntimeDir()).dir;
  target = await startTarget('127.0.0.1');
  target6 = await startTarget('::1');
});
afterEach(() => {
  expect(leftoverProcesses()).toEqual([]);
  cleanWorkDirs();
});
afterAll(async () => {
  await sandbox?.close();
  await target?.close();
  await target6?.close();
});

const run = (code: string, overrides = {}, seed: Record<string, string> = {}) =>
  runNode(sandbox, runtimeDir, code, overrides, seed);

describe('red team: the egress proxy', () => {
  it('refuses every spelling of a private or metadata address, by CONNECT and absolute-form', async () => {
    const p = target.port;
    const q = target6.port;
    const authorities = [
      `127.0.0.1:${p}`,
      `2130706433:${p}`,
      `0x7f000001:${p}`,
      `0177.0.0.1:${p}`,
      `127.1:${p}`,
      `0:${p}`,
      `0.0.0.0:${p}`,
      `[::1]:${q}`,
      `[::]:${q}`,
      `[::ffff:127.0.0.1]:${p}`,
      `[::ffff:7f00:1]:${p}`,
      `[0:0:0:0:0:ffff:7f00:1]:${p}`,
      `[::127.0.0.1]:${p}`,
      `[64:ff9b::127.0.0.1]:${p}`,
      `[2002:7f00:1::]:${p}`,
      `localhost:${p}`,
      `localhost.:${p}`,
      `LOCALHOST:${p}`,
      `x@127.0.0.1:${p}`,
      `example.com:443@127.0.0.1:${p}`,
      `127.0.0.1:${p}/`,
      `127.0.0.1:${p}#example.com`,
      '169.254.169.254:80',
      '2852039166:80',
      '[::ffff:a9fe:a9fe]:80',
      '[fd00:ec2::254]:80',
    ];
    const urls = [
      `http://127.0.0.1:${p}/`,
      `http://2130706433:${p}/`,
      `http://0x7f.1:${p}/`,
      `http://[::ffff:7f00:1]:${p}/`,
      `http://[::1]:${q}/`,
      `http://localhost.:${p}/`,
      `http://example.com@127.0.0.1:${p}/`,
      `http://127.0.0.1:${p}\\@example.com/`,
      `https://127.0.0.1:${p}/`,
      `http://0:${p}/`,
      `http://169.254.169.254/latest/meta-data/`,
      `http://[::ffff:169.254.169.254]/`,
      `ftp://127.0.0.1:${p}/`,
      `file:///etc/passwd`,
      `/origin-form`,
      `//127.0.0.1:${p}/`,
    ];
    const { outcome } = await run(
      `${RAW_PROXY_CLIENT}
      (async () => {
        for (const a of ${JSON.stringify(authorities)}) console.log(JSON.stringify(await tunnel(a)));
        for (const u of ${JSON.stringify(urls)}) console.log(JSON.stringify(await absolute(u, '127.0.0.1:${p}')));
      })();`,
      { timeoutMs: 90_000 },
    );
    const results = jsonLines(outcome.stdout);
    expect(results).toHaveLength(authorities.length + urls.length);
    for (const result of results) {
      expect(result.text, String(result.what)).not.toContain('target-ok');
      // 0: Node's HTTP parser dropped a malformed request line without an answer.
      expect([0, 400, 403, 502], `${String(result.what)} answered ${String(result.text)}`).toContain(result.status);
    }
    // IP literals are judged without DNS: the policy's 403, never a connection attempt.
    for (const result of results.filter((r) => /^CONNECT (\d[\dx.]*|\[[\da-f:.]+\]):\d+$/.test(String(r.what))))
      expect(result.status, String(result.what)).toBe(403);
    expect(target.hits).toEqual([]);
    expect(target6.hits).toEqual([]);
  });

  it('judges every request of a pipelined keep-alive connection on its own (no target switch mid-connection)', async () => {
    const p = target.port;
    const { outcome } = await run(
      `${RAW_PROXY_CLIENT}
      (async () => {
        const text = await exchange(
          'GET http://127.0.0.1:${p}/first HTTP/1.1\\r\\nHost: 127.0.0.1:${p}\\r\\n\\r\\n' +
          'GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\\r\\nHost: 127.0.0.1:${p}\\r\\n\\r\\n' +
          'GET http://[::ffff:a9fe:a9fe]/ HTTP/1.1\\r\\nHost: 127.0.0.1:${p}\\r\\nConnection: close\\r\\n\\r\\n');
        console.log(JSON.stringify({ statuses: [...text.matchAll(/HTTP\\/1\\.1 (\\d{3})/g)].map((m) => Number(m[1])), text }));
      })();`,
      { allowPrivate: true },
    );
    const [result] = jsonLines(outcome.stdout);
    // The refusal closes the connection, so the third request is never read.
    expect(result?.statuses).toEqual([200, 403]);
    expect(String(result?.text)).toContain('metadata');
    expect(target.hits).toEqual(['/first']);
    target.hits.length = 0;
  });

  it(`opens at most ${EGRESS_MAX_CONNECTIONS} upstream connections at once, even when 120 race through DNS`, async () => {
    const { outcome } = await run(
      `${RAW_PROXY_CLIENT}
      const held = (authority) => new Promise((resolve) => {
        const s = net.connect(3128, '127.0.0.1', () => s.write('CONNECT ' + authority + ' HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'));
        let t = ''; s.on('data', (c) => { t += c; if (t.includes('\\r\\n\\r\\n')) resolve(status(t)); });
        s.on('error', (e) => resolve(e.code)); s.on('close', () => resolve('closed'));
      });
      (async () => {
        const all = await Promise.all(Array.from({ length: 120 }, () => held('localhost:${target.port}')));
        const count = {}; for (const r of all) count[r] = (count[r] || 0) + 1;
        console.log(JSON.stringify(count));
        process.exit(0);
      })();`,
      { allowPrivate: true },
    );
    const [count] = jsonLines(outcome.stdout) as Record<string, number>[];
    expect(count?.['200'] ?? 0).toBeGreaterThan(0);
    expect(count?.['200']).toBeLessThanOrEqual(EGRESS_MAX_CONNECTIONS);
    expect((count?.['200'] ?? 0) + (count?.['429'] ?? 0)).toBe(120);
  });

  it("a slowloris against its own proxy neither starves a concurrent run nor leaks the runner's descriptors", async () => {
    const fdsBefore = readdirSync('/proc/self/fd').length;
    const attacker = run(
      `${RAW_PROXY_CLIENT}
      (async () => {
        await absolute('http://127.0.0.1:${target.port}/slowloris-ready');
        const sockets = [];
        for (let i = 0; i < 300; i++) {
          const s = net.connect(3128, '127.0.0.1', () => s.write('GET http://127.0.0.1:${target.port}/ HTTP/1.1\\r\\nHost: x\\r\\nX-Slow: '));
          s.on('error', () => undefined); sockets.push(s);
        }
        setInterval(() => { for (const s of sockets) if (!s.destroyed) s.write('a'); }, 500);
      })();`,
      { allowPrivate: true, timeoutMs: 8_000 },
    );
    await target.seen('/slowloris-ready');
    const { outcome: victim } = await run(
      `${RAW_PROXY_CLIENT}
      (async () => console.log(JSON.stringify(await absolute('http://127.0.0.1:${target.port}/victim'))))();`,
      { allowPrivate: true },
    );
    expect(jsonLines(victim.stdout)[0]).toMatchObject({ status: 200 });
    expect((await attacker).outcome.killed).toBe('timeout');
    // Proxy sockets are closed before run() answers; allow a little slack for unrelated handles.
    expect(readdirSync('/proc/self/fd').length).toBeLessThanOrEqual(fdsBefore + 8);
    target.hits.length = 0;
  });
});

describe('red team: sandboxes cannot see each other or the host', () => {
  it('two concurrent runs share no /tmp, /dev/shm, /work, processes, abstract sockets or loopback ports', async () => {
    const marker = `redteam-${process.pid}-${Date.now()}`;
    const planted = run(
      PLANT(
        marker,
        `http://127.0.0.1:${target.port}/wait/${marker}`,
        `http://127.0.0.1:${target.port}/ready/${marker}`,
      ),
      { allowPrivate: true },
    );
    await target.seen(`/ready/${marker}`);
    const { outcome } = await run(LOOK(marker));
    target.release(marker);
    expect((await planted).outcome.stdout).toContain('planted and released');
    const seen = jsonLines(outcome.stdout)[0]!;
    expect(seen).toMatchObject({ tmp: 'ENOENT', shm: 'ENOENT', work: 'ENOENT' });
    expect(JSON.stringify(seen.procs)).not.toContain(marker);
    expect(String(seen.unix)).not.toContain(marker);
    expect(seen.abstract).toBe('ECONNREFUSED');
    expect(seen.tcp).toBe('ECONNREFUSED');
    target.hits.length = 0;
  });

  it("cannot reach the host's abstract or path Unix sockets", async () => {
    const name = `vigil-redteam-host-${process.pid}`;
    const host: NetServer = createNetServer((socket) => socket.end('host-socket-reached'));
    await new Promise<void>((resolve) => host.listen(`\0${name}`, resolve));
    const path = join(tmpdir(), `${name}.sock`);
    const hostPath: NetServer = createNetServer((socket) => socket.end('host-socket-reached'));
    await new Promise<void>((resolve) => hostPath.listen(path, resolve));
    try {
      const { outcome } = await run(`
        const net = require('net');
        const dial = (t) => new Promise((resolve) => {
          const s = net.connect(t, () => s.on('data', (c) => resolve('connected ' + c)));
          s.on('error', (e) => resolve(e.code));
        });
        (async () => {
          const found = require('fs').readFileSync('/proc/net/unix', 'utf8');
          console.log(JSON.stringify({ abstract: await dial('\\0${name}'), path: await dial('${path}'),
            run: await dial('/run/dbus/system_bus_socket'), listed: found.includes('${name}') }));
        })();`);
      expect(jsonLines(outcome.stdout)[0]).toEqual({
        abstract: 'ECONNREFUSED',
        path: 'ENOENT',
        run: 'ENOENT',
        listed: false,
      });
    } finally {
      host.close();
      hostPath.close();
    }
  });

  it('meets the seccomp filter on the denied calls, through the x32 ABI and through int 0x80', async () => {
    const probe = [
      'import ctypes, json',
      'libc = ctypes.CDLL(None, use_errno=True)',
      'names = {1: "EPERM", 38: "ENOSYS"}',
      'def call(nr, *args):',
      '    ctypes.set_errno(0)',
      '    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])',
      '    return "allowed" if r >= 0 else names.get(ctypes.get_errno(), "errno%d" % ctypes.get_errno())',
      'print(json.dumps({',
      '  "ptrace": call(101, 0, 0, 0, 0), "keyctl": call(250, 0, -3, 0), "add_key": call(248, 0, 0, 0, 0, 0),',
      '  "bpf": call(321, 0, 0, 0), "perf_event_open": call(298, 0, 0, -1, -1, 0), "userfaultfd": call(323, 0),',
      '  "io_uring_setup": call(425, 1, 0), "unshare": call(272, 0x00020000), "mount": call(165, 0, 0, 0, 0, 0),',
      '  "open_by_handle_at": call(304, -1, 0, 0), "setns": call(308, -1, 0), "x32_getpid": call(0x40000000 | 39),',
      '  "getpid": call(39)}))',
    ].join('\n');
    // i386 getpid through int 0x80 from machine code: the filter kills the process (SIGSYS).
    const int80 = [
      'import ctypes, mmap',
      'buf = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)',
      'buf.write(bytes([0xb8, 0x14, 0, 0, 0, 0xcd, 0x80, 0xc3]))',
      'f = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))',
      'print("int80 returned", f(), flush=True)',
    ].join('\n');
    const { outcome } = await run(`
      const { spawnSync } = require('child_process');
      const a = spawnSync('/usr/bin/python3', ['-c', ${JSON.stringify(probe)}], { encoding: 'utf8' });
      const b = spawnSync('/usr/bin/python3', ['-c', ${JSON.stringify(int80)}], { encoding: 'utf8' });
      console.log(JSON.stringify({ calls: JSON.parse(a.stdout || '{}'), err: a.stderr, int80: { signal: b.signal, out: b.stdout } }));`);
    const seen = jsonLines(outcome.stdout)[0] as {
      calls: Record<string, string>;
      err: string;
      int80: { signal: string | null; out: string };
    };
    expect(seen.calls.getpid, seen.err).toBe('allowed');
    for (const name of ['ptrace', 'keyctl', 'add_key', 'bpf', 'perf_event_open', 'userfaultfd', 'unshare', 'mount'])
      expect(seen.calls[name], name).toBe('EPERM');
    for (const name of ['open_by_handle_at', 'setns']) expect(seen.calls[name], name).toBe('EPERM');
    expect(seen.calls.io_uring_setup).toBe('ENOSYS');
    expect(seen.calls.x32_getpid).toBe('ENOSYS');
    expect(seen.int80).toEqual({ signal: 'SIGSYS', out: '' });
  });

  it("its mount table names neither the runner's pid nor its state dir (fixed in 3b2a389)", async () => {
    const { outcome } = await run(`process.stdout.write(require('fs').readFileSync('/proc/self/mountinfo', 'utf8'))`);
    expect(outcome.exitCode).toBe(0);
    expect(outcome.stdout).toContain(' /work ');
    expect(outcome.stdout).not.toMatch(/vigil-sandbox-\d+/);
    expect(outcome.stdout).not.toContain(tmpdir() + '/');
  });

  // A bind mount's line names its source's path in its filesystem: /runtime named the repository
  // (/work/main/.runtimes/<name>), the extra binds their host dirs. They are bound from overlay views now.
  it('its mount table names no host path of what is bound read-only: the runtime, an extra dir or file', async () => {
    const extra = mkdtempSync(join(tmpdir(), 'redteam-bind-'));
    chmodSync(extra, 0o755);
    writeFileSync(join(extra, 'file.txt'), 'bound');
    chmodSync(join(extra, 'file.txt'), 0o644);
    try {
      const { outcome } = await run(
        `const fs = require('fs');
         console.log(fs.readFileSync('/extra/file.txt', 'utf8') + fs.readFileSync('/one.txt', 'utf8'));
         process.stdout.write(fs.readFileSync('/proc/self/mountinfo', 'utf8'));`,
        {
          extraReadOnlyBinds: [
            { host: extra, inside: '/extra' },
            { host: join(extra, 'file.txt'), inside: '/one.txt' },
          ],
        },
      );
      expect(outcome.exitCode, outcome.stderr).toBe(0);
      expect(outcome.stdout).toMatch(/^boundbound\n/);
      expect(outcome.stdout).toContain(' /runtime ');
      expect(outcome.stdout).not.toContain(runtimeDir);
      expect(outcome.stdout).not.toContain(extra);
    } finally {
      rmSync(extra, { recursive: true, force: true });
    }
  });

  it('gains nothing from setuid binaries, device nodes or capabilities', async () => {
    const { outcome } = await run(`
      const { spawnSync } = require('child_process'); const fs = require('fs');
      const status = fs.readFileSync('/proc/self/status', 'utf8');
      const field = (n) => (new RegExp('^' + n + ':\\\\s*(\\\\S+)', 'm').exec(status) || [])[1];
      const su = spawnSync('/usr/bin/su', ['-c', 'id -u', 'root'], { input: '\\n', timeout: 5000 });
      const mknod = spawnSync('/usr/bin/mknod', ['/tmp/mem', 'c', '1', '1']);
      const mount = spawnSync('/usr/bin/mount', ['-t', 'tmpfs', 'x', '/tmp']);
      const read = (p) => { try { fs.readFileSync(p); return 'read'; } catch (e) { return e.code; } };
      console.log(JSON.stringify({
        capEff: field('CapEff'), capBnd: field('CapBnd'), noNewPrivs: field('NoNewPrivs'),
        su: String(su.stdout).trim(), suStatus: su.status, mknod: mknod.status, mount: mount.status,
        mem: read('/dev/mem'), kmsg: read('/dev/kmsg'), sys: read('/sys/kernel/notes'),
        sysrq: (() => { try { fs.writeFileSync('/proc/sysrq-trigger', 'h'); return 'written'; } catch (e) { return e.code; } })(),
      }));`);
    const seen = jsonLines(outcome.stdout)[0]!;
    expect(seen).toMatchObject({ capEff: '0000000000000000', capBnd: '0000000000000000', noNewPrivs: '1' });
    expect(seen.su).not.toBe('0');
    expect(seen.suStatus).not.toBe(0);
    expect(seen.mknod).not.toBe(0);
    expect(seen.mount).not.toBe(0);
    expect(seen).toMatchObject({ mem: 'ENOENT', kmsg: 'ENOENT', sys: 'ENOENT' });
    expect(seen.sysrq).not.toBe('written');
  });
});

describe('red team: one run must not exhaust what other runs share (inotify was shared per host uid until 54bfa4d)', () => {
  it('a run holding every inotify instance it can get leaves fs.watch working in a concurrent run', async () => {
    const hog = run(
      `const { spawn } = require('child_process'); const net = require('net');
       // Python's ctypes calls inotify_init1 directly: one process can hold many instances.
       const py = spawn('/usr/bin/python3', ['-c', [
         'import ctypes, sys, time', 'libc = ctypes.CDLL(None, use_errno=True)', 'held = []',
         'while len(held) < 4096:', '    fd = libc.inotify_init1(0)', '    if fd < 0: break', '    held.append(fd)',
         'print(len(held), flush=True)', 'time.sleep(60)'].join('\\n')], { stdio: ['ignore', 'pipe', 'inherit'] });
       const get = (path) => new Promise((resolve) => {
         const s = net.connect(3128, '127.0.0.1', () => s.write('GET http://127.0.0.1:${target.port}' + path + ' HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n'));
         s.on('error', resolve); s.on('close', resolve); s.resume();
       });
       py.stdout.once('data', async (held) => {
         console.log('held ' + String(held).trim());
         await get('/hog-ready');
         await get('/wait/hog');
         process.exit(0);
       });`,
      { allowPrivate: true, timeoutMs: 20_000 },
    );
    await target.seen('/hog-ready');
    const { outcome } = await run(
      `try { require('fs').watch('/tmp', () => {}).close(); console.log('watch ok'); } catch (e) { console.log(e.code); }`,
    );
    target.release('hog');
    expect((await hog).outcome.stdout).toMatch(/^held \d+/);
    expect(outcome.stdout.trim()).toBe('watch ok');
    target.hits.length = 0;
  });
});

describe('red team: what the runner reads back from /work', () => {
  it('copies back regular files only: a FIFO, a hard link, a symlinked directory and a socket planted in /work', async () => {
    const { outcome, workDir } = await run(
      `const fs = require('fs'); const net = require('net'); const { execFileSync } = require('child_process');
       fs.rmSync('/work/keep.txt'); execFileSync('/usr/bin/mkfifo', ['/work/keep.txt']);
       fs.linkSync('/work/other.txt', '/work/hard.txt');
       fs.symlinkSync('/etc', '/work/etcdir'); fs.symlinkSync('/proc/self/environ', '/work/env.txt');
       const server = net.createServer().listen('/work/sock', () => { console.log('planted'); process.exit(0); });`,
      { copyBack: ['keep.txt', 'other.txt', 'hard.txt', 'etcdir', 'etcdir/passwd', 'env.txt', 'sock'] },
      { 'keep.txt': 'from the host', 'other.txt': 'other' },
    );
    expect(outcome.stdout, outcome.stderr).toContain('planted');
    const entries = readdirSync(workDir).sort();
    for (const entry of entries) expect(lstatSync(join(workDir, entry)).isFile(), entry).toBe(true);
    expect(entries).toEqual(['hard.txt', 'keep.txt', 'other.txt']);
    expect(readFileSync(join(workDir, 'keep.txt'), 'utf8')).toBe('from the host');
  });

  it('reads a file in place only if it is a regular one: not a FIFO, a symlink to a host file, or through a symlinked directory', async () => {
    const { outcome } = await run(
      `const fs = require('fs'); const { execFileSync } = require('child_process');
       execFileSync('/usr/bin/mkfifo', ['/work/fifo']);
       fs.symlinkSync('/etc/passwd', '/work/passwd'); fs.symlinkSync('/etc', '/work/etc');
       fs.mkdirSync('/work/dir'); fs.writeFileSync('/work/big', 'x'.repeat(1000)); fs.writeFileSync('/work/ok', 'read');
       console.log('planted');`,
      {
        readFiles: ['fifo', 'passwd', 'etc/passwd', 'dir', 'missing', 'big', 'ok'].map((path) => ({
          path,
          maxBytes: 10,
        })),
      },
    );
    expect(outcome.stdout, outcome.stderr).toContain('planted');
    expect(Object.keys(outcome.files ?? {}).sort()).toEqual(['big', 'ok']);
    expect(outcome.files?.big?.toString()).toBe('x'.repeat(10));
    expect(outcome.files?.ok?.toString()).toBe('read');
  });
});

describe('red team: strange things left in /work (copy-back rejected run() with host paths before the workdir.ts fix)', () => {
  it.each([
    [
      'a file name that is not UTF-8',
      `fs.mkdirSync('/work/d'); fs.writeFileSync(Buffer.from('/work/d/bad\\xff\\xfe.txt', 'latin1'), 'x');`,
    ],
    [
      'directories nested past PATH_MAX',
      `process.chdir('/work'); for (let i = 0; i < 2100; i++) { fs.mkdirSync('d'); process.chdir('d'); } fs.writeFileSync('f', 'x');`,
    ],
  ])('%s: run() still answers, and no host path reaches the caller', async (_name, code) => {
    let answer: unknown;
    try {
      const copyBack = ['d'];
      answer = (
        await runNode(sandbox, runtimeDir, `const fs = require('fs'); ${code} console.log('left it');`, { copyBack })
      ).outcome;
    } catch (error) {
      answer = { rejected: (error as Error).message.slice(0, 300) };
    }
    expect(JSON.stringify(answer)).not.toContain('vigil-sandbox-');
    expect(answer).toMatchObject({ exitCode: 0, stdout: 'left it\n' });
  });
});

describe('red team: a runner killed mid-run', () => {
  it('leaves mounts, state and cgroups that the next sandbox start sweeps away', async () => {
    const token = `redteam-kill-${process.pid}-${Date.now()}`;
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('./test-runner-child.ts', import.meta.url)), runtimeDir, token],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      child.once('exit', (code) => reject(new Error(`child runner exited early with ${code}`)));
    });
    const pid = child.pid!;
    const prefix = `vigil-sandbox-${pid}`;
    const stateDirs = () => readdirSync(tmpdir()).filter((name) => name === prefix || name.startsWith(`${prefix}-`));
    const mounts = () =>
      readFileSync('/proc/self/mountinfo', 'utf8')
        .split('\n')
        .filter((line) => line.includes(`/${prefix}`));
    const cgroupDirs = () =>
      ['memory', 'pids'].flatMap((controller) => {
        const own = readFileSync('/proc/self/cgroup', 'utf8').match(new RegExp(`:${controller}:(.*)$`, 'm'))?.[1];
        const dir = join('/sys/fs/cgroup', controller, own === '/' || !own ? '' : own, prefix);
        return existsSync(dir) ? [dir] : [];
      });
    expect(stateDirs().length).toBe(1);
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    for (let i = 0; i < 200 && processesWith(token).length > 0; i += 1) await new Promise((r) => setTimeout(r, 50));
    const describeLeft = () =>
      processesWith(token).map((left) => {
        try {
          return `${left} ${readFileSync(`/proc/${left}/stat`, 'utf8').slice(0, 80)}`;
        } catch {
          return `${left} gone`;
        }
      });
    expect(describeLeft()).toEqual([]);
    const fresh = await requireRedteamSandbox();
    try {
      expect(mounts()).toEqual([]);
      expect(stateDirs()).toEqual([]);
      expect(cgroupDirs()).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});

// bwrap's --die-with-parent takes effect only once bwrap reaches its prctl: a runner SIGKILLed after it
// started the launcher and before then left bwrap, bwrap and the script orphaned to pid 1 with no
// wall-clock limit (the timer died with the runner), in 1 of 5 tries, until a next runner start swept
// the stale cgroup, or forever if none came. Each run now has a watchdog that outlives the runner.
describe('red team: a runner killed while a run starts, or stalled', () => {
  it('leaves no sandbox running on without its wall-clock limit', async () => {
    const leftovers: string[] = [];
    // The window is between the launcher's fork and bwrap's PR_SET_PDEATHSIG: aim for it a few times.
    for (let round = 0; round < 8 && leftovers.length === 0; round += 1) {
      const token = `redteam-launch-${process.pid}-${round}`;
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', fileURLToPath(new URL('./test-runner-child.ts', import.meta.url)), runtimeDir, token],
        { stdio: ['ignore', 'ignore', 'inherit'] },
      );
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline) {
        const launcher = processesWith(token).find(
          (pid) => pid !== child.pid && /^(sh|prlimit|setpriv)\n$/.test(commOf(pid)),
        );
        if (launcher !== undefined) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
      await new Promise((resolve) => setTimeout(resolve, 3000));
      for (const pid of processesWith(token)) {
        leftovers.push(`${pid} ${commOf(pid).trim()}`);
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone meanwhile.
        }
      }
    }
    expect(leftovers).toEqual([]);
  }, 150_000);

  it(`a runner whose timer cannot fire (its event loop blocked) still sees the run killed at the budget + ${BACKSTOP_GRACE_MS / 1000} s`, async () => {
    const token = `redteam-stall-${process.pid}`;
    const running = run('', { command: [RUNTIME_NODE, '-e', 'setInterval(() => {}, 1000)', token], timeoutMs: 500 });
    // bwrap and the command (the bridge runs inside it) carry the token on their command lines.
    while (processesWith(token).length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    // Hold this process (the runner) without yielding, long past the budget plus the grace.
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const until = Date.now() + 500 + BACKSTOP_GRACE_MS + 15_000;
    while (processesWith(token).length > 0 && Date.now() < until) Atomics.wait(pause, 0, 0, 100);
    const left = processesWith(token);
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    expect(left).toEqual([]);
    expect((await running).outcome.killed).toBe('timeout');
  }, 60_000);
});

function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8');
  } catch {
    return '';
  }
}
