/**
 * The runner under overload, every figure of issue 29's targets in one run: one runner in this
 * process (embedded adapters, or Redis with --redis), one-minute API checks on a loopback target,
 * measured over one minute at each of three loads, the checks added between phases:
 *   half   C/2 checks   (CPU per run at half load)
 *   full   C checks     (the ceiling: its runs/min; if it skipped nothing, C is a floor of it)
 *   over   2.5·C checks (2.5× overload)
 * Each phase warms up for 45–105 s after its checks are in (fresh checks run at once at first).
 * Targets: over completes ≥ 0.9 of full's runs/min; its completed runs start with delay p99
 * under 10% of the frequency (6 s); its CPU per run is within 1.2× of half's.
 *
 *   npm run bench -- runner --overload --checks C [--redis]
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger, Lifecycle } from '#core';
import type { CheckResult } from '#domain';
import { createMetricsRegistry } from '#http';
import { createPlatform, platformEnv } from '#platform';
import { plannedStart, runResultId, windowStart } from '#scheduling';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import { defaultSink, startRunner } from '../apps/runner/index.ts';
import { benchConfig } from './config.ts';
import { appendChecks } from './runner.ts';
import { freePort, spawnTs } from './support/processes.ts';
import { log, printMachine, printTable, writeResults } from './support/report.ts';
import { cleanUp, runSuffix } from './support/services.ts';
import { percentile, round, sleep } from './support/stats.ts';

const MIN = 60_000;

interface Seen {
  id: string;
  checkId: string;
  startedAt: number;
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      overload: { type: 'boolean', default: true },
      checks: { type: 'string', default: '70000' },
      redis: { type: 'boolean', default: false },
    },
  });
  const ceiling = Number(values.checks);
  printMachine();
  const suffix = runSuffix();
  // On Redis the files are only the event store (one synced append per check created: minutes for
  // 400,000 on disk) and the analytics store, so they go in memory when the host has /dev/shm.
  const base = values.redis && existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const dataDir = mkdtempSync(join(base, 'vigil-bench-overload-'));
  const quiet = createLogger({ level: 'warn', name: 'bench' });
  const lifecycle = new Lifecycle(quiet);
  const port = await freePort();
  const target = spawnTs('bench/runner-target.ts', {}, [], [String(port)]);
  while (!target.output().includes('listening')) await sleep(50);
  const config = z.object(platformEnv).parse({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    ...(values.redis ? { REDIS_URL: benchConfig.redisUrl, REDIS_KEY_PREFIX: `bench-overload-${suffix}:` } : {}),
  });
  const platform = await createPlatform(config, quiet, lifecycle, { bus: true, analytics: true, clientId: 'bench' });
  try {
    const inner = defaultSink(platform);
    const seen: Seen[] = [];
    const sink = {
      accept: async (results: CheckResult[]) => {
        await inner.accept(results);
        for (const r of results) seen.push({ id: r.id, checkId: r.checkId, startedAt: Date.parse(r.startedAt) });
      },
    };
    const url = `http://127.0.0.1:${port}/health`;
    const halfChecks = Math.round(ceiling / 2);
    const phases = [
      { name: 'half', checks: halfChecks },
      { name: 'full', checks: 2 * halfChecks },
      { name: 'over', checks: Math.round(ceiling * 2.5) },
    ];
    // Every check is created before any runner starts (seeding beside a live runner is slow), each
    // phase its own location: the first C/2 checks run in all three, the next C/2 in full and over.
    log(`creating ${phases[2]!.checks} checks`);
    const ids: string[] = [];
    const groups: Array<[number, string[]]> = [
      [halfChecks, ['half', 'full', 'over']],
      [halfChecks, ['full', 'over']],
      [phases[2]!.checks - 2 * halfChecks, ['over']],
    ];
    for (const [count, locations] of groups)
      for (const id of await appendChecks(platform.eventStore, count, url, locations)) ids.push(id);
    const rows: Array<ReturnType<typeof measure>> = [];
    for (const phase of phases) {
      // A registry per runner: each registers the runner metrics afresh.
      const registry = createMetricsRegistry();
      const runner = startRunner({
        platform,
        log: quiet,
        metrics: registry,
        sink,
        settings: {
          location: phase.name,
          defaultLocation: 'local',
          allowPrivate: true,
          concurrency: 200,
          accountConcurrency: 50,
          leaseMs: 75_000,
          encryptionKey: 'ab'.repeat(32),
        },
      });
      await runner.ready;
      // Every check in the queue first: a check the runner places during the measured minute runs
      // its first window at once, however late that is against its planned start.
      while ((await platform.stateStore.zcard(`runner:due:${phase.name}`)) < phase.checks) await sleep(500);
      const from = windowStart(Date.now() + 45_000, MIN) + MIN;
      log(`${phase.name}: warming up until ${new Date(from).toISOString()}, measuring 1 min`);
      await sleep(from - Date.now());
      const load = loadavg()[0]!;
      const skippedBefore = await skippedTotal(registry);
      const cpuStart = process.cpuUsage();
      await sleep(from + MIN - Date.now());
      const cpu = process.cpuUsage(cpuStart);
      const skipped = (await skippedTotal(registry)) - skippedBefore;
      const loadEnd = loadavg()[0]!;
      // Late runs of the measured window still finishing.
      await sleep(6_000);
      await runner.stop();
      const row = measure(phase, from, ids.slice(0, phase.checks), seen, cpu.user + cpu.system, skipped, [
        load,
        loadEnd,
      ]);
      rows.push(row);
      log(`${phase.name}: ${JSON.stringify(row)}`);
      // Only what later phases need: results of later windows.
      const later = seen.filter((r) => r.startedAt >= from + MIN - 10_000);
      seen.length = 0;
      for (const r of later) seen.push(r);
    }
    const [half, full, over] = rows as [Row, Row, Row];
    const ratio = round(over.runsPerMinute / Math.max(1, full.runsPerMinute), 3);
    const cpuRatio = round(over.cpuMsPerRun / Math.max(0.001, half.cpuMsPerRun), 3);
    printTable(
      `Check runner under overload (${platform.adapters.stateStore}): one process, one-minute API checks`,
      ['phase', 'checks', 'runs/min', 'skipped/min', 'delay p50 ms', 'delay p99 ms', 'CPU ms/run', 'repeated', 'load'],
      rows.map((r) => [
        r.phase,
        r.checks,
        r.runsPerMinute,
        r.skipped,
        r.delayP50Ms,
        r.delayP99Ms,
        r.cpuMsPerRun,
        r.repeatedRuns,
        `${round(r.load[0]!, 1)}–${round(r.load[1]!, 1)}`,
      ]),
    );
    const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
    console.log(
      [
        `ceiling: ${full.runsPerMinute} runs/min at ${full.checks} checks (${full.skipped > 0 ? 'saturated: it skipped' : 'it skipped nothing: the ceiling is at least this'})`,
        `target throughput at 2.5x: ${over.runsPerMinute} / ${full.runsPerMinute} = ${ratio} (>= 0.9): ${met(ratio >= 0.9)}`,
        `target delay p99 at 2.5x: ${over.delayP99Ms} ms (< 6000 ms, 10% of 60 s): ${met(over.delayP99Ms < 6_000)}`,
        `target CPU per run at 2.5x over half load: ${over.cpuMsPerRun} / ${half.cpuMsPerRun} = ${cpuRatio} (<= 1.2): ${met(cpuRatio <= 1.2)}`,
        `repeated runs (a window run twice): ${rows.reduce((n, r) => n + r.repeatedRuns, 0)}`,
      ].join('\n'),
    );
    writeResults('runner-overload', {
      stateStore: platform.adapters.stateStore,
      phases: rows,
      throughputRatio: ratio,
      cpuRatio,
    });
  } finally {
    await lifecycle.stop();
    await target.stop();
    if (values.redis) await cleanUp({ redisPrefix: `bench-overload-${suffix}:` });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

type Row = ReturnType<typeof measure>;

function measure(
  phase: { name: string; checks: number },
  from: number,
  ids: string[],
  seen: Seen[],
  cpuMicros: number,
  skipped: number,
  load: number[],
) {
  // The measured window's runs, named by their result id (a late run may start in the next minute).
  const wanted = new Set(ids.map((id) => runResultId(id, phase.name, from)));
  const inWindow = seen.filter((r) => wanted.has(r.id));
  const distinct = new Set(inWindow.map((r) => r.id)).size;
  const delays = inWindow.map((r) => r.startedAt - plannedStart(r.checkId, from, MIN)).sort((a, b) => a - b);
  return {
    phase: phase.name,
    checks: phase.checks,
    runsPerMinute: distinct,
    repeatedRuns: inWindow.length - distinct,
    skipped,
    delayP50Ms: round(percentile(delays, 0.5), 0),
    delayP99Ms: round(percentile(delays, 0.99), 0),
    cpuMsPerRun: round(cpuMicros / 1000 / Math.max(1, distinct), 3),
    load,
  };
}

async function skippedTotal(registry: Registry): Promise<number> {
  const metric = await registry.getSingleMetric('vigil_runner_windows_skipped_total')?.get();
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}
