/**
 * Runner replicas scale (issue 29, item 3): the real runner app (`apps/runner/src/main.ts`) as its
 * own processes on Redis, each pinned to one core with `taskset`, one-minute API checks against a
 * loopback target (bench/runner-target.ts, in `count` mode: it counts every run it receives).
 *
 *   phase 1: one replica on core 0, N checks of location `solo` (N above what one core carries)
 *   phase 2: K replicas on cores 0…K-1, K × N checks of location `pair` (the same load per replica)
 *
 * Reported per phase: runs/min (distinct (check, window) hits at the target), windows skipped,
 * repeated runs (a window hit twice: must be 0), delay p50/p99 after planned start, each replica's
 * share of the runs and its CPU, and what the unpinned rest used (Redis, the target, this process,
 * each core's busy share). The ceiling is phase 1's runs/min when it skipped; the overload point
 * (checks one replica carries without skipping) is that ceiling in one-minute checks; the scale-out
 * is phase 2's runs/min over phase 1's. Each replica writes its results to its own embedded
 * analytics store (its own DATA_DIR with a copy of the event store), as a standalone runner does.
 *
 *   npm run bench -- runner --replicas 2 --redis [--checks 160000] [--minutes 1]
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { createLogger } from '#core';
import { createSqliteEventStore } from '#eventstore';
import { windowStart } from '#scheduling';
import { benchConfig } from './config.ts';
import { appendChecks } from './runner.ts';
import { freePort, spawnTs, waitForHttp, type Child } from './support/processes.ts';
import { log, printMachine, printTable, writeResults } from './support/report.ts';
import { cleanUp, runSuffix } from './support/services.ts';
import { round, sleep } from './support/stats.ts';

const MIN = 60_000;
const TICKS = 100;

interface Replica {
  core: number;
  process: Child;
  url: string;
  dataDir: string;
}

/** User + system CPU of a process so far, in ms (Linux /proc, every thread). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
}

/** Busy and total jiffies per core, from /proc/stat (idle and iowait are not busy). */
function coreTimes(): { busy: number; total: number }[] {
  return readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .filter((line) => /^cpu\d+ /.test(line))
    .map((line) => {
      const f = line.split(/\s+/).slice(1, 9).map(Number);
      const total = f.reduce((a, b) => a + b, 0);
      return { busy: total - f[3]! - f[4]!, total };
    });
}

/** Every thread of the process allowed on `core` only (checked, not assumed). */
function pinnedTo(pid: number, core: number): boolean {
  return readdirSync(`/proc/${pid}/task`).every((tid) => {
    const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
    return /Cpus_allowed_list:\s*(\S+)/.exec(status)?.[1] === String(core);
  });
}

/** Sum of a counter's series on a replica's /metrics. */
async function counter(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** Runs per minute per whole core, summed over a phase's replicas. */
function perCore(phase: { perReplica: { runsPerMinute: number; cpuPercentOfCore: number }[] }): number {
  return phase.perReplica.reduce((sum, r) => sum + r.runsPerMinute / Math.max(0.01, r.cpuPercentOfCore / 100), 0);
}

async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const value = (key: string) => Number(new RegExp(`${key}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (value('used_cpu_user') + value('used_cpu_sys')) * 1000;
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      checks: { type: 'string', default: '160000' },
      replicas: { type: 'string', default: '2' },
      minutes: { type: 'string', default: '1' },
      redis: { type: 'boolean', default: false },
    },
  });
  const checks = Number(values.checks);
  const k = Number(values.replicas);
  const minutes = Number(values.minutes);
  if (!values.redis) throw new Error('--replicas needs --redis: replicas share the due-queue of the Redis state store');
  if (!Number.isInteger(k) || k < 2 || k > cpus().length)
    throw new Error(`--replicas must be 2…${cpus().length} (one core each on this machine)`);
  printMachine();
  const suffix = runSuffix();
  const prefix = `bench-replicas-${suffix}:`;
  // In memory: the event store syncs every append (fsync on a disk is about 1 ms each here), and
  // the replicas' own files should cost them no disk waits the in-process bench did not have.
  const scratch = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const seed = mkdtempSync(join(scratch, 'vigil-bench-replicas-'));
  const quiet = createLogger({ level: 'warn', name: 'bench' });
  const port = await freePort();
  const target = spawnTs('bench/runner-target.ts', {}, [], [String(port), 'count']);
  while (!target.output().includes('listening')) await sleep(50);
  const redis = new Redis(benchConfig.redisUrl);
  const replicas: Replica[] = [];
  try {
    log(`creating ${checks} checks for one replica and ${k * checks} for ${k}`);
    // One event store per location, so a replica catches up on its own location's checks only.
    const path = (id: string) => `http://127.0.0.1:${port}/${id}`;
    for (const [location, count] of [
      ['solo', checks],
      ['pair', k * checks],
    ] as const) {
      const eventStore = createSqliteEventStore({ path: join(seed, `${location}.sqlite`), log: quiet });
      await appendChecks(eventStore, count, path, [location]);
      await eventStore.close();
    }

    const start = async (location: string, core: number): Promise<Replica> => {
      const dataDir = mkdtempSync(join(scratch, 'vigil-bench-replica-'));
      for (const end of ['', '-wal'])
        if (existsSync(join(seed, `${location}.sqlite${end}`)))
          copyFileSync(join(seed, `${location}.sqlite${end}`), join(dataDir, `events.sqlite${end}`));
      const opsPort = await freePort();
      const child = spawnTs('apps/runner/src/main.ts', {
        DATA_DIR: dataDir,
        PORT: String(opsPort),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        REDIS_URL: benchConfig.redisUrl,
        REDIS_KEY_PREFIX: prefix,
        VIGIL_RUNNER_LOCATION: location,
        VIGIL_RUNNER_DEFAULT_LOCATION: location,
        VIGIL_RUNNER_ALLOW_PRIVATE: 'true',
        VIGIL_ENCRYPTION_KEY: 'ab'.repeat(32),
        VIGIL_RUNTIMES_INSTALL: 'false',
      });
      // Every thread now, and the threads it starts later inherit the mask.
      execFileSync('taskset', ['-a', '-cp', String(core), String(child.pid)], { stdio: 'ignore' });
      const replica = { core, process: child, url: `http://127.0.0.1:${opsPort}`, dataDir };
      replicas.push(replica);
      await waitForHttp(`${replica.url}/health`, child, 300_000);
      return replica;
    };

    const measure = async (label: string, location: string, group: Replica[], load: number) => {
      // The first, partial window runs every fresh check at once: measure from the next whole one.
      const from = windowStart(Date.now() + 15_000, MIN) + MIN;
      const to = from + minutes * MIN;
      log(`${label}: ${group.length} replica(s), ${load} checks, measuring from ${new Date(from).toISOString()}`);
      await sleep(from - Date.now());
      const snapshot = async () => ({
        runs: await Promise.all(group.map((r) => counter(r.url, 'vigil_runner_runs_total'))),
        skipped: await Promise.all(group.map((r) => counter(r.url, 'vigil_runner_windows_skipped_total'))),
        cpu: group.map((r) => cpuMsOf(r.process.pid)),
        target: cpuMsOf(target.pid),
        redis: await redisCpuMs(redis),
        bench: process.cpuUsage(),
        cores: coreTimes(),
        load: loadavg()[0]!,
      });
      const a = await snapshot();
      await sleep(to - Date.now());
      const b = await snapshot();
      const pinned = group.every((r) => pinnedTo(r.process.pid, r.core));
      // Runs of the measured windows that start up to the lateness (5 s) after their window.
      await sleep(6_000);
      const seen = (await (await fetch(`http://127.0.0.1:${port}/__stats?from=${from}&to=${to}`)).json()) as {
        runs: number;
        repeated: number;
        delayP50Ms: number;
        delayP99Ms: number;
      };
      const ms = to - from;
      const runs = group.map((_, i) => b.runs[i]! - a.runs[i]!);
      const runsAll = runs.reduce((x, y) => x + y, 0);
      const benchCpu = process.cpuUsage(a.bench);
      return {
        label,
        replicas: group.length,
        checks: load,
        runsPerMinute: round(seen.runs / minutes, 0),
        completed: round(seen.runs / (load * minutes), 3),
        skippedPerMinute: round(b.skipped.reduce((x, y, i) => x + y - a.skipped[i]!, 0) / minutes, 0),
        repeatedRuns: seen.repeated,
        delayP50Ms: seen.delayP50Ms,
        delayP99Ms: seen.delayP99Ms,
        perReplica: group.map((r, i) => ({
          core: r.core,
          share: round(runs[i]! / Math.max(1, runsAll), 3),
          runsPerMinute: round(runs[i]! / minutes, 0),
          cpuPercentOfCore: round(((b.cpu[i]! - a.cpu[i]!) / ms) * 100, 1),
          cpuMsPerRun: round((b.cpu[i]! - a.cpu[i]!) / Math.max(1, runs[i]!), 3),
        })),
        pinned,
        targetCpuPercent: round(((b.target - a.target) / ms) * 100, 1),
        redisCpuPercent: round(((b.redis - a.redis) / ms) * 100, 1),
        benchCpuPercent: round(((benchCpu.user + benchCpu.system) / 1000 / ms) * 100, 1),
        coreBusyPercent: b.cores.map((c, i) =>
          round(((c.busy - a.cores[i]!.busy) / (c.total - a.cores[i]!.total)) * 100, 0),
        ),
        loadAverage: [round(a.load, 1), round(b.load, 1)],
        at: new Date(from).toISOString(),
      };
    };

    log('starting one replica (it catches up on the event store and fills the queue)');
    const solo = await start('solo', 0);
    const one = await measure('one replica', 'solo', [solo], checks);
    await solo.process.stop();
    const group = await Promise.all(Array.from({ length: k }, (_, core) => start('pair', core)));
    const many = await measure(`${k} replicas`, 'pair', group, k * checks);

    const ceiling = one.skippedPerMinute > 0 ? one.runsPerMinute : null;
    const figures = {
      checksPerReplica: checks,
      replicas: k,
      minutes,
      one,
      many,
      ceilingRunsPerMinute: ceiling,
      overloadPointChecks: ceiling,
      scaleOut: round(many.runsPerMinute / Math.max(1, one.runsPerMinute), 2),
      // Runs per minute per whole core of CPU each replica got, summed, over one replica's: what K
      // replicas would give if Redis and the target did not take part of the pinned cores (meaningful
      // only while the replicas are saturated, i.e. skip).
      scaleOutPerCoreUsed: round(perCore(many) / Math.max(1, perCore(one)), 2),
    };
    printTable(
      `Runner replicas on Redis, each pinned to one core (${cpus().length} cores here; Redis and the target unpinned)`,
      [
        'phase',
        'checks',
        'runs/min',
        'completed',
        'skipped/min',
        'repeated',
        'delay p50/p99 ms',
        'per replica: core share CPU% ms/run',
        'Redis CPU%',
        'target CPU%',
        'cores busy %',
        'load avg',
      ],
      [one, many].map((p) => [
        p.label,
        p.checks,
        p.runsPerMinute,
        p.completed,
        p.skippedPerMinute,
        p.repeatedRuns,
        `${p.delayP50Ms} / ${p.delayP99Ms}`,
        p.perReplica.map((r) => `${r.core}: ${r.share} ${r.cpuPercentOfCore}% ${r.cpuMsPerRun}`).join('\n'),
        p.redisCpuPercent,
        p.targetCpuPercent,
        p.coreBusyPercent.join(' / '),
        `${p.loadAverage[0]}–${p.loadAverage[1]}`,
      ]),
    );
    console.log(
      ceiling === null
        ? `one replica skipped nothing: ${checks} checks is under its ceiling, raise --checks to measure it`
        : `ceiling of one replica on one core: ${ceiling} runs/min (overload point: about ${ceiling} one-minute checks)`,
    );
    console.log(
      `scale-out, ${k} replicas over one: ${figures.scaleOut}× (target ≥ 1.8×); per core of CPU the replicas got: ${figures.scaleOutPerCoreUsed}×; all pinned: ${one.pinned && many.pinned}`,
    );
    log(`results written to ${writeResults('runner-replicas', figures)}`);
  } finally {
    for (const replica of replicas) {
      await replica.process.stop();
      rmSync(replica.dataDir, { recursive: true, force: true });
    }
    await target.stop();
    redis.disconnect();
    await cleanUp({ redisPrefix: prefix });
    rmSync(seed, { recursive: true, force: true });
  }
}
