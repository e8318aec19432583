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
 *   npm run bench -- runner [--checks 20000] [--minutes 2] [--redis]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger, Lifecycle } from '#core';
import { applyCheckDefaults, type CheckInput, type CheckResult } from '#domain';
import { createMetricsRegistry } from '#http';
import { createPlatform, platformEnv } from '#platform';
import { z } from 'zod';
import { defaultSink, startRunner } from '../apps/runner/index.ts';
import { plannedStart, windowStart } from '../apps/runner/src/schedule.ts';
import { benchConfig } from './config.ts';
import { freePort, spawnTs } from './support/processes.ts';
import { log, printMachine, printTable, writeResults } from './support/report.ts';
import { cleanUp, runSuffix } from './support/services.ts';
import { percentile, round, sleep } from './support/stats.ts';

const MIN = 60_000;

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      checks: { type: 'string', default: '20000' },
      minutes: { type: 'string', default: '2' },
      redis: { type: 'boolean', default: false },
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
    const accountId = randomUUID();
    const ids: string[] = [];
    const at = new Date().toISOString();
    for (let i = 0; i < checks; i++) {
      const id = randomUUID();
      ids.push(id);
      const check = {
        id,
        ...applyCheckDefaults({
          name: `bench ${i}`,
          checkType: 'API',
          frequency: 1,
          request: { url: `http://127.0.0.1:${port}/health`, assertions: [] },
        } as CheckInput),
      };
      await platform.eventStore.append(
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

    // The result sink of the deployment, observed: each result's start against its planned start.
    const inner = defaultSink(platform);
    const seen: CheckResult[] = [];
    const sink = {
      accept: async (results: CheckResult[]) => {
        await inner.accept(results);
        seen.push(...results);
      },
    };
    const runner = startRunner({
      platform,
      log: quiet,
      metrics: createMetricsRegistry(),
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
    const from = windowStart(Date.now(), MIN) + MIN;
    const to = from + minutes * MIN;
    log(`warming up until ${new Date(from).toISOString()}, measuring ${minutes} min`);
    await sleep(from - Date.now());
    const cpuStart = process.cpuUsage();
    await sleep(to - Date.now());
    const cpu = process.cpuUsage(cpuStart);
    // Runs planned before the end that are still finishing.
    await sleep(3_000);
    await runner.stop();

    const inWindow = seen.filter((r) => {
      const started = Date.parse(r.startedAt);
      return started >= from && started < to;
    });
    const delays = inWindow
      .map((r) => Date.parse(r.startedAt) - plannedStart(r.checkId, windowStart(Date.parse(r.startedAt), MIN), MIN))
      .sort((a, b) => a - b);
    const windows = Array.from({ length: minutes }, (_, i) => from + i * MIN);
    const expected = checks * minutes;
    const rows = await platform.analytics!.query<{ n: number | string; distinct_ids: number | string }>(
      `SELECT count(*) AS n, count(DISTINCT id) AS distinct_ids FROM check_results WHERE started_at >= '${new Date(from).toISOString().slice(0, 19).replace('T', ' ')}' AND started_at < '${new Date(to).toISOString().slice(0, 19).replace('T', ' ')}'`,
    );
    const stored = Number(rows[0]?.n ?? 0);
    const distinct = Number(rows[0]?.distinct_ids ?? 0);
    const figures = {
      checks,
      minutes,
      stateStore: platform.adapters.stateStore,
      runsPerMinute: round(inWindow.length / minutes, 0),
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
      failedRuns: inWindow.filter((r) => r.hasFailures).length,
    };
    printTable(
      'Check runner: one process, one-minute API checks on loopback',
      [
        'checks',
        'runs/min',
        'delay p50 ms',
        'delay p99 ms',
        'CPU ms/run',
        'expected',
        'in analytics',
        'missing',
        'doubled',
      ],
      [
        [
          checks,
          figures.runsPerMinute,
          figures.delayP50Ms,
          figures.delayP99Ms,
          figures.cpuMsPerRun,
          expected,
          stored,
          figures.missing,
          figures.doubled,
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
