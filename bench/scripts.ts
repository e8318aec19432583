/**
 * Script checks: MULTI_STEP and PLAYWRIGHT runs per minute on one runner (libs/scripts: the
 * runtime's own Playwright Test in the sandbox), against a local HTTP target. Beside them, in the
 * same run: the runtime's node spawned bare and sandboxed (`node -e 0`), and the same one-request
 * test run by Playwright Test bare (no sandbox, no harness), so each layer's cost shows.
 * CPU per run (this process and every descendant, from a cpuacct cgroup) tells capacity on a loaded machine:
 * runs/min a 2-core runner could sustain = 2 × 60 000 / CPU ms per run.
 *
 *   npm run bench -- scripts [--runtime 2026.04] [--runs 40] [--browser-runs 10] [--concurrency 2] [--spawns 15]
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '#core';
import { findInstalled, loadCatalogue, runtimesRoot } from '#runtimes';
import { createSandbox, RUNTIME_NODE } from '#sandbox';
import { createScriptRunner, type ScriptRunRequest } from '#scripts';
import { log, printMachine, printTable, writeResults } from './support/report.ts';
import { round, summarise } from './support/stats.ts';

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/**
 * CPU of this process and all its descendants. A cpuacct cgroup of our own holds the whole tree
 * (the sandbox moves its runs into memory and pids cgroups only); without one, /proc/self/stat's
 * children's time misses what the sandbox's init reaps.
 */
const cpuacct = join('/sys/fs/cgroup/cpuacct', `vigil-bench-scripts-${process.pid}`);
let accounted = false;
try {
  mkdirSync(cpuacct);
  writeFileSync(join(cpuacct, 'cgroup.procs'), String(process.pid));
  accounted = true;
} catch {
  accounted = false;
}

function treeCpuMs(): number {
  if (accounted) return Number(readFileSync(join(cpuacct, 'cpuacct.usage'), 'utf8')) / 1e6;
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
  return (ticks * 1000) / ticksPerSecond;
}

function releaseCpuacct(): void {
  if (!accounted) return;
  try {
    writeFileSync('/sys/fs/cgroup/cpuacct/cgroup.procs', String(process.pid));
    rmdirSync(cpuacct);
  } catch {
    // Children still exiting keep it busy; an empty cgroup left behind costs nothing.
  }
}

function exec(file: string, args: string[], cwd?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: 'ignore', env: {}, ...(cwd ? { cwd } : {}) });
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}`))));
  });
}

async function pool<T>(count: number, concurrency: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        results[i] = await work(i);
      }
    }),
  );
  return results;
}

interface Row {
  what: string;
  runs: number;
  perMin: number;
  p50: number;
  p90: number;
  cpuMsPerRun: number;
  capacityPerMin: number;
  failed: number;
}

async function measure(
  what: string,
  runs: number,
  concurrency: number,
  work: (i: number) => Promise<boolean>,
): Promise<Row> {
  log(`${what}: ${runs} runs, concurrency ${concurrency}`);
  const durations: number[] = [];
  const cpuBefore = treeCpuMs();
  const started = performance.now();
  const passed = await pool(runs, concurrency, async (i) => {
    const t = performance.now();
    const ok = await work(i);
    durations.push(performance.now() - t);
    return ok;
  });
  const wall = performance.now() - started;
  const cpu = (treeCpuMs() - cpuBefore) / runs;
  const summary = summarise(durations);
  return {
    what,
    runs,
    perMin: round((runs * 60_000) / wall),
    p50: summary.p50,
    p90: summary.p90,
    cpuMsPerRun: round(cpu),
    capacityPerMin: round((2 * 60_000) / cpu),
    failed: passed.filter((ok) => !ok).length,
  };
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runtime: { type: 'string' },
      runs: { type: 'string', default: '40' },
      'browser-runs': { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '2' },
      spawns: { type: 'string', default: '15' },
    },
  });
  const runs = Number(values.runs);
  const browserRuns = Number(values['browser-runs']);
  const concurrency = Number(values.concurrency);
  const spawns = Number(values.spawns);
  const root = runtimesRoot();
  const name = values.runtime ?? loadCatalogue()[0]!.name;
  const runtime = await findInstalled(root, name);
  if (!runtime) throw new Error(`runtime ${name} is not installed: npm run runtimes:install ${name}`);

  const server = createServer((req, res) => {
    res.setHeader('content-type', req.url === '/page' ? 'text/html' : 'application/json');
    res.end(req.url === '/page' ? '<!doctype html><h1>Bench</h1>' : '{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const target = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const logger = createLogger({ level: 'warn', name: 'bench-scripts' });
  const sandbox = createSandbox({ logger });
  const verdict = await sandbox.probe();
  if (!verdict.available) throw new Error(`sandbox unavailable: ${verdict.reason}`);
  const runner = createScriptRunner({ sandbox, runtimesRoot: root, logger });
  const ready = await runner.ready();
  if (!ready.ok) throw new Error(ready.reason);
  printMachine();

  const multiStep = `import { test, expect } from '@playwright/test';
test('one request', async ({ request }) => {
  await test.step('get', async () => {
    expect((await request.get(process.env.TARGET + '/api')).status()).toBe(200);
  });
});`;
  const browser = `import { test, expect } from '@playwright/test';
test('one page', async ({ page }) => {
  await test.step('open', async () => {
    await page.goto(process.env.TARGET + '/page');
    await expect(page.locator('h1')).toHaveText('Bench');
  });
});`;
  const request = (kind: ScriptRunRequest['kind'], script: string): ScriptRunRequest => ({
    kind,
    script,
    runtimeName: name,
    env: { TARGET: target },
    timeoutMs: 60_000,
    allowPrivate: true,
  });
  const failures: string[] = [];
  const runScript = async (kind: ScriptRunRequest['kind'], script: string) => {
    const outcome = await runner.run(request(kind, script));
    if (!outcome.passed && failures.length < 5) failures.push(outcome.error ?? 'failed');
    return outcome.passed;
  };

  // The same one-request test run by the runtime's Playwright Test with nothing of Vigil's around it.
  const bareDir = await mkdtemp(join(tmpdir(), 'bench-pw-'));
  await symlink(join(runtime.dir, 'node_modules'), join(bareDir, 'node_modules'));
  await writeFile(
    join(bareDir, 'one.spec.cjs'),
    `const { test, expect } = require('@playwright/test');
test('one request', async ({ request }) => {
  await test.step('get', async () => expect((await request.get('${target}/api')).status()).toBe(200));
});`,
  );
  await writeFile(join(bareDir, 'config.cjs'), `module.exports = { testDir: __dirname, workers: 1, reporter: 'dot' };`);
  const cli = join(runtime.dir, 'node_modules/@playwright/test/cli.js');

  const spawnWork = await mkdtemp(join(tmpdir(), 'bench-spawn-'));
  const sandboxed = () =>
    sandbox.run({
      runtimeDir: runtime.dir,
      workDir: spawnWork,
      command: [RUNTIME_NODE, '-e', '0'],
      env: {},
      timeoutMs: 30_000,
      memoryBytes: 512 * 1024 * 1024,
      maxOutputBytes: 65_536,
      allowPrivate: false,
    });

  const rows: Row[] = [];
  try {
    // Warm the page cache, and give the runner time to fill its compile cache for this runtime.
    for (let i = 0; i < 4; i++) await runScript('MULTI_STEP', multiStep);
    rows.push(
      await measure('bare node -e 0', spawns, 1, async () => (await exec(runtime.nodeBinary, ['-e', '0']), true)),
    );
    rows.push(await measure('sandboxed node -e 0', spawns, 1, async () => (await sandboxed()).exitCode === 0));
    rows.push(
      await measure('bare Playwright Test, 1 request', Math.min(runs, 10), 1, async () => {
        await exec(runtime.nodeBinary, [cli, 'test', '--config', 'config.cjs'], bareDir);
        return true;
      }),
    );
    rows.push(await measure('MULTI_STEP, 1 request', runs, concurrency, () => runScript('MULTI_STEP', multiStep)));
    rows.push(await measure('PLAYWRIGHT, 1 page', browserRuns, concurrency, () => runScript('PLAYWRIGHT', browser)));
  } finally {
    await runner.close();
    await sandbox.close();
    server.close();
    await rm(bareDir, { recursive: true, force: true });
    await rm(spawnWork, { recursive: true, force: true });
    releaseCpuacct();
  }

  printTable(
    `Script runs on runtime ${name} (node ${runtime.nodeVersion}); capacity = 2 cores × 60 000 / CPU ms per run`,
    ['what', 'runs', 'runs/min', 'p50 ms', 'p90 ms', 'CPU ms/run', 'capacity/min (2 cores)', 'failed'],
    rows.map((row) => [
      row.what,
      row.runs,
      row.perMin,
      row.p50,
      row.p90,
      row.cpuMsPerRun,
      row.capacityPerMin,
      row.failed,
    ]),
  );
  const [bare, boxed] = rows;
  console.log(
    `\nsandbox cost over a bare spawn: ${round(boxed!.p50 - bare!.p50)} ms at p50 (target ≤ 150); ` +
      `MULTI_STEP target: ≥ 300 runs/min on 2 cores`,
  );
  if (failures.length > 0) console.log(`failures: ${failures.join(' | ')}`);
  writeResults('scripts', { runtime: name, nodeVersion: runtime.nodeVersion, concurrency, rows, failures });
}
