/**
 * The check runner: N API checks at a one-minute frequency against a loopback HTTP server (its own
 * process, so its CPU is not counted), run by one runner in this process on the embedded adapters
 * (or Redis with --redis). Checks are created as events in the event store (what the API would
 * append), so set-up takes seconds, not an API call per check. The first, partial minute is warm-up
 * (fresh checks whose offset has passed run at once); the figures are over the next full minutes.
 * Reported: runs per minute sustained, schedule delay p50/p99 (start − planned start, from the
 * results), CPU per run, and results in the analytics store against those expected (missing,
 * doubled).
 *
 * Past its ceiling the runner skips runs it could only start late (issue 29): the table adds the
 * windows skipped, the share of expected runs completed and the load average at the start and end
 * of the measured minutes (the machine is shared: compare CPU per run between sizes, not rates).
 * --cpu-prof writes a V8 profile of the measured minutes under bench/results/profiles/ (summarise
 * it with `npm run bench -- profile <file>`).
 *
 *   npm run bench -- runner [--checks 20000] [--minutes 2] [--redis] [--cpu-prof]
 *
 * With --replicas K the runners are their own processes pinned to cores (bench/runner-replicas.ts).
 * With --overload --checks C: C/2, C and 2.5·C checks in one run, and issue 29's targets (bench/runner-overload.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger, Lifecycle } from '#core';
import { applyCheckDefaults, type CheckInput, type CheckResult } from '#domain';
import type { EventStore } from '#eventstore';
import { createMetricsRegistry } from '#http';
import { createPlatform, platformEnv } from '#platform';
import { plannedStart, runResultId, windowStart } from '#scheduling';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import { defaultSink, startRunner } from '../apps/runner/index.ts';
import { benchConfig } from './config.ts';
import { freePort, spawnTs } from './support/processes.ts';
import { log, printMachine, printTable, writeResults } from './support/report.ts';
import { cleanUp, runSuffix } from './support/services.ts';
import { percentile, round, sleep } from './support/stats.ts';

const MIN = 60_000;

export async function run(argv: string[]): Promise<void> {
  // Runner replicas as their own processes, pinned to cores: bench/runner-replicas.ts.
  if (argv.includes('--replicas')) return (await import('./runner-replicas.ts')).run(argv);
  // Half load, ceiling and 2.5x overload in one run, with the targets: bench/runner-overload.ts.
  if (argv.includes('--overload')) return (await import('./runner-overload.ts')).run(argv);
  const { values } = parseArgs({
    args: argv,
    options: {
      checks: { type: 'string', default: '20000' },
      minutes: { type: 'string', default: '2' },
      redis: { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
    },
  });
  const checks = Number(values.checks);
  const minutes = Number(values.minutes);
  printMachine();
  const suffix = runSuffix();
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-runner-'));
  const quiet = createLogger({ level: 'warn', name: 'bench' });
  const lifecycle = new Lifecycle(quiet);

  const port = await freePort();
  const target = spawnTs('bench/runner-target.ts', {}, [], [String(port)]);
  while (!target.output().includes('listening')) await sleep(50);
  const config = z.object(platformEnv).parse({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    ...(values.redis ? { REDIS_URL: benchConfig.redisUrl, REDIS_KEY_PREFIX: `bench-runner-${suffix}:` } : {}),
  });
  const platform = await createPlatform(config, quiet, lifecycle, { bus: true, analytics: true, clientId: 'bench' });
  try {
    log(`creating ${checks} one-minute API checks`);
    const ids = await appendChecks(platform.eventStore, checks, `http://127.0.0.1:${port}/health`);

    // The result sink of the deployment, observed: each result's start against its planned start.
    const inner = defaultSink(platform);
    const seen: CheckResult[] = [];
    const sink = {
      accept: async (results: CheckResult[]) => {
        await inner.accept(results);
        seen.push(...results);
      },
    };
    const registry = createMetricsRegistry();
    const runner = startRunner({
      platform,
      log: quiet,
      metrics: registry,
      sink,
      settings: {
        location: 'local',
        defaultLocation: 'local',
        allowPrivate: true,
        concurrency: 200,
        accountConcurrency: 50,
        leaseMs: 75_000,
        encryptionKey: 'ab'.repeat(32),
      },
    });
    await runner.ready;
    // A whole minute of warm-up: fresh checks whose offset has passed all run at once at first.
    const from = windowStart(Date.now(), MIN) + 2 * MIN;
    const to = from + minutes * MIN;
    log(`warming up until ${new Date(from).toISOString()}, measuring ${minutes} min`);
    await sleep(from - Date.now());
    const loadStart = loadavg()[0]!;
    const profiler = values['cpu-prof'] ? new Session() : null;
    if (profiler) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    const skippedBefore = await skippedTotal(registry);
    const cpuStart = process.cpuUsage();
    await sleep(to - Date.now());
    const cpu = process.cpuUsage(cpuStart);
    const skipped = (await skippedTotal(registry)) - skippedBefore;
    const loadEnd = loadavg()[0]!;
    let profileFile: string | null = null;
    if (profiler) {
      const { profile } = await profiler.post('Profiler.stop');
      const dir = join(import.meta.dirname, 'results', 'profiles');
      mkdirSync(dir, { recursive: true });
      profileFile = join(dir, `runner-${checks}-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`);
      writeFileSync(profileFile, JSON.stringify(profile));
      profiler.disconnect();
    }
    // Runs of the measured windows that are still due or finishing.
    await sleep(5_000);
    await runner.stop();

    // Each result belongs to the window its id names (a late run may start in the next one).
    const windows = Array.from({ length: minutes }, (_, i) => from + i * MIN);
    const windowOf = (r: CheckResult): number | null => {
      const base = windowStart(Date.parse(r.startedAt), MIN);
      for (const w of [base, base - MIN, base - 2 * MIN]) if (runResultId(r.checkId, 'local', w) === r.id) return w;
      return null;
    };
    const inWindow = seen.filter((r) => {
      const w = windowOf(r);
      return w !== null && w >= from && w < to;
    });
    const delays = inWindow
      .map((r) => Date.parse(r.startedAt) - plannedStart(r.checkId, windowOf(r)!, MIN))
      .sort((a, b) => a - b);
    const expectedIds = new Set(ids.flatMap((id) => windows.map((w) => runResultId(id, 'local', w))));
    const expected = expectedIds.size;
    const rows = await platform.analytics!.query<{ id: string }>(`SELECT CAST(id AS VARCHAR) AS id FROM check_results`);
    const storedIds = rows.map((row) => String(row.id)).filter((id) => expectedIds.has(id));
    const stored = storedIds.length;
    const distinct = new Set(storedIds).size;
    const figures = {
      checks,
      minutes,
      stateStore: platform.adapters.stateStore,
      runsPerMinute: round(new Set(inWindow.map((r) => r.id)).size / minutes, 0),
      // Runs done twice for one window (a lease that ran out under overload); counted once downstream.
      repeatedRuns: inWindow.length - new Set(inWindow.map((r) => r.id)).size,
      delayP50Ms: round(percentile(delays, 0.5), 0),
      delayP99Ms: round(percentile(delays, 0.99), 0),
      delayMaxMs: delays.at(-1) ?? 0,
      cpuMsPerRun: round((cpu.user + cpu.system) / 1000 / Math.max(1, inWindow.length), 3),
      expected,
      inAnalytics: stored,
      distinctInAnalytics: distinct,
      missing: expected - distinct,
      doubled: stored - distinct,
      windows: windows.length,
      runsInMeasuredMinutes: seen.filter((r) => Date.parse(r.startedAt) >= from && Date.parse(r.startedAt) < to).length,
      failedRuns: inWindow.filter((r) => r.hasFailures).length,
      skippedWindows: skipped,
      completed: round(distinct / Math.max(1, expected), 3),
      loadAverage: [round(loadStart, 1), round(loadEnd, 1)],
      cpuProfile: profileFile,
    };
    printTable(
      'Check runner: one process, one-minute API checks on loopback',
      [
        'checks',
        'runs/min',
        'delay p50 ms',
        'delay p99 ms',
        'CPU ms/run',
        'repeated runs',
        'expected',
        'in analytics',
        'missing',
        'doubled',
        'skipped',
        'completed',
        'load avg',
      ],
      [
        [
          checks,
          figures.runsPerMinute,
          figures.delayP50Ms,
          figures.delayP99Ms,
          figures.cpuMsPerRun,
          figures.repeatedRuns,
          expected,
          stored,
          figures.missing,
          figures.doubled,
          skipped,
          figures.completed,
          `${figures.loadAverage[0]}–${figures.loadAverage[1]}`,
        ],
      ],
    );
    log(`results written to ${writeResults('runner', figures)}`);
  } finally {
    await lifecycle.stop();
    await target.stop();
    if (values.redis) await cleanUp({ redisPrefix: `bench-runner-${suffix}:` });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Appends `count` one-minute API checks (spread over 100 accounts) as CheckCreated events, what the
 * API would append; returns their ids. `url` is the target, or a function of the check's id.
 */
export async function appendChecks(
  eventStore: EventStore,
  count: number,
  url: string | ((id: string) => string),
  locations?: string[],
): Promise<string[]> {
  const accountId = randomUUID();
  const ids: string[] = [];
  const at = new Date().toISOString();
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    ids.push(id);
    const check = {
      id,
      ...applyCheckDefaults({
        name: `bench ${i}`,
        checkType: 'API',
        frequency: 1,
        ...(locations ? { locations } : {}),
        request: { url: typeof url === 'string' ? url : url(id), assertions: [] },
      } as CheckInput),
    };
    await eventStore.append(
      `check-${id}`,
      [
        {
          id: randomUUID(),
          type: 'CheckCreated',
          data: { accountId: `${accountId.slice(0, -4)}${String(i % 100).padStart(4, '0')}`, check, at },
          metadata: { accountId, actor: 'bench', commandId: randomUUID(), occurredAt: at, schemaVersion: 1 },
        },
      ],
      'no_stream',
    );
  }
  return ids;
}

/** Windows the runner skipped (all reasons), from its own metric. */
async function skippedTotal(registry: Registry): Promise<number> {
  const metric = await registry.getSingleMetric('vigil_runner_windows_skipped_total')?.get();
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}
