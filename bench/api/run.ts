/**
 * API throughput: autocannon (50 connections, 20 s) against GET /v1/variables/{key} and
 * GET /v1/accounts/me with a real owner key, on the standalone process (its own process;
 * embedded adapters, or Redis with --redis). Baselines in the same run, same load generator:
 * a bare node:http hello endpoint and a bare fastify one, each in its own process.
 *
 * The issue's ratio is against bare fastify (the framework Vigil runs on); node:http is shown too.
 * Beside req/s, the server's CPU time per request (from /proc) and its ratio to bare fastify's:
 * on a machine shared with other work that ratio holds where req/s swings with the neighbours.
 * The main thread's CPU per request is shown apart: it is what bounds req/s (one event loop),
 * while the process total adds the GC and libuv threads.
 * --connections takes a list for the "how cost grows" table: req/s, the ratio to bare fastify at
 * the same count, and p99, per count. --store runs the state store(s) named: sqlite, redis or both.
 *
 * --compare-cache adds each route with the read cache off (the path before it), in the same run.
 *
 * --repeat N runs N rounds per count and reports medians (ratios: the median of the rounds' ratios).
 *
 * --warmup S (default 2) gives every server, baselines included, S seconds of unmeasured load on the
 * same route before each measured round: a fresh process otherwise counts its JIT compilation and the
 * tail of its start-up against whichever route is measured first.
 *
 *   npm run bench -- api [--duration 10] [--connections 10,50,200] [--store sqlite|redis|both] [--compare-cache]
 *                        [--repeat 1] [--warmup 2] [--cpu-prof]
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type autocannonModule from 'autocannon';
import { benchConfig } from '../config.ts';
import { freePort, repoRoot, spawnTs, waitForHttp } from '../support/processes.ts';
import { log, printMachine, printTable, writeResults } from '../support/report.ts';
import { cleanUp, runSuffix } from '../support/services.ts';
import { ratio, round } from '../support/stats.ts';
import { createAccount, spawnVigil } from '../support/vigil.ts';
import { requireTool } from '../../scripts/npm-tools.ts';

// A bench-only client, installed on first use (scripts/npm-tools.ts), not by `npm install`.
const autocannon = requireTool<typeof autocannonModule>('autocannon');

interface Row {
  target: string;
  reqPerSec: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  ok: number;
  non2xx: number;
  errors: number;
  /** Server CPU (user + system) per answered request, in µs: contention moves it far less than req/s. */
  cpuUsPerReq: number;
  /** The same for the main thread alone (the event loop that serves every request). */
  mainUsPerReq: number;
  /** With --repeat: the median of each round's req/s ratio to bare fastify (a burst of load elsewhere hits one round). */
  vsFastify?: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** Per target, the median of every figure over the rounds, and the median of the rounds' ratios to bare fastify. */
function medianRows(rounds: Row[][]): Row[] {
  return rounds[0]!.map((first) => {
    const mine = rounds.map((rows) => rows.find((r) => r.target === first.target)!);
    const of = (key: keyof Omit<Row, 'target' | 'vsFastify'>) => median(mine.map((r) => r[key]));
    return {
      target: first.target,
      reqPerSec: Math.round(of('reqPerSec')),
      p50: of('p50'),
      p90: of('p90'),
      p99: of('p99'),
      max: of('max'),
      ok: of('ok'),
      non2xx: of('non2xx'),
      errors: of('errors'),
      cpuUsPerReq: round(of('cpuUsPerReq'), 1),
      mainUsPerReq: round(of('mainUsPerReq'), 1),
      vsFastify: round(median(rounds.map((rows, i) => mine[i]!.reqPerSec / rows.find(isFastify)!.reqPerSec)), 2),
    };
  });
}

/** CPU seconds used so far (utime + stime from /proc, in clock ticks of 10 ms): the process, or one thread. */
function cpuSeconds(pid: number, thread?: number): number {
  const stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Seconds of unmeasured load each server gets first (--warmup), so JIT compilation and start-up work are not counted. */
let warmupSeconds = 2;

async function cannon(
  target: string,
  url: string,
  headers: Record<string, string>,
  duration: number,
  connections: number,
  pid: number,
): Promise<Row> {
  if (warmupSeconds > 0) {
    log(`warm-up ${target}: ${connections} connections, ${warmupSeconds} s (not measured)`);
    await autocannon({ url, headers, duration: warmupSeconds, connections });
  }
  log(`autocannon ${target}: ${connections} connections, ${duration} s`);
  const cpuBefore = cpuSeconds(pid);
  const mainBefore = cpuSeconds(pid, pid);
  const result = await autocannon({ url, headers, duration, connections });
  const cpu = cpuSeconds(pid) - cpuBefore;
  const main = cpuSeconds(pid, pid) - mainBefore;
  const answered = Math.max(1, result['2xx'] + result.non2xx);
  return {
    // To 0.1 µs: /proc counts 10 ms ticks, 0.04 µs a request over 5 s at 50,000 req/s.
    cpuUsPerReq: round((cpu * 1e6) / answered, 1),
    mainUsPerReq: round((main * 1e6) / answered, 1),
    target,
    reqPerSec: Math.round(result['2xx'] / result.duration),
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function baseline(kind: 'http' | 'fastify', duration: number, connections: number): Promise<Row> {
  const port = await freePort();
  const server = spawnTs('bench/api/hello.ts', {}, [], [kind, String(port)]);
  try {
    await waitForHttp(`http://127.0.0.1:${port}/hello`, server);
    return await cannon(
      `baseline: bare ${kind === 'http' ? 'node:http' : 'fastify'} GET /hello`,
      `http://127.0.0.1:${port}/hello`,
      {},
      duration,
      connections,
      server.pid,
    );
  } finally {
    await server.stop();
  }
}

type Store = 'sqlite' | 'redis';
type Measured = Row & { connections: number; store: Store };

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10,50,200' },
      store: { type: 'string', default: 'sqlite' },
      /** Kept for older notes: the same as --store redis. */
      redis: { type: 'boolean', default: false },
      /** Also measures each route with the read cache off (VIGIL_READ_CACHE_TTL_MS=0), in the same run. */
      'compare-cache': { type: 'boolean', default: false },
      /** Rounds per connection count; each row reports medians, and its ratio is the median of the rounds' ratios. */
      repeat: { type: 'string', default: '1' },
      'cpu-prof': { type: 'boolean', default: false },
      /** Seconds of unmeasured load before each measured round of each target (baselines too); 0 for none. */
      warmup: { type: 'string', default: '2' },
    },
  });
  warmupSeconds = Number(values.warmup);
  if (!(warmupSeconds >= 0)) throw new Error('--warmup: seconds, 0 or more');
  const duration = Number(values.duration);
  const repeat = Number(values.repeat);
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error('--repeat: a positive integer');
  const counts = values.connections.split(',').map(Number);
  if (counts.some((c) => !Number.isInteger(c) || c < 1)) throw new Error('--connections: a list of positive integers');
  const storeArg = values.redis ? 'redis' : values.store;
  if (!['sqlite', 'redis', 'both'].includes(storeArg)) throw new Error('--store: sqlite, redis or both');
  const stores: Store[] = storeArg === 'both' ? ['sqlite', 'redis'] : [storeArg as Store];
  printMachine();
  const all: Measured[] = [];
  for (const store of stores) {
    for (const connections of counts) {
      const rounds: Row[][] = [];
      for (let i = 1; i <= repeat; i++) {
        const rows = await measure(
          store === 'redis',
          values['cpu-prof'],
          duration,
          connections,
          values['compare-cache'],
        );
        const which = repeat > 1 ? `, round ${i} of ${repeat}` : '';
        printRun(rows, `api: ${connections} connections × ${duration} s, state store ${storeName(store)}${which}`);
        rounds.push(rows);
      }
      const rows = repeat > 1 ? medianRows(rounds) : rounds[0]!;
      if (repeat > 1)
        printRun(rows, `api: ${connections} connections, state store ${storeName(store)}: medians of ${repeat} rounds`);
      all.push(...rows.map((r) => ({ ...r, connections, store })));
    }
    if (counts.length > 1)
      printGrowth(
        all.filter((r) => r.store === store),
        counts,
        store,
      );
  }
  printTargets(all);
  writeResults('api', {
    options: { duration, connections: counts, stores, compareCache: values['compare-cache'], repeat, warmupSeconds },
    rows: all.map((r) => {
      const fastify = all.find((b) => b.store === r.store && b.connections === r.connections && isFastify(b))!;
      return {
        ...r,
        vsFastify: r.vsFastify ?? round(r.reqPerSec / fastify.reqPerSec, 3),
        cpuVsFastify: round(fastify.cpuUsPerReq / r.cpuUsPerReq, 3),
        mainCpuVsFastify: round(fastify.mainUsPerReq / r.mainUsPerReq, 3),
      };
    }),
  });
}

const storeName = (store: Store) => (store === 'redis' ? 'Redis' : 'SQLite (embedded)');
const isFastify = (row: Row) => row.target.startsWith('baseline: bare fastify');

function printRun(rows: Row[], title: string): void {
  const bare = rows.find((r) => r.target.startsWith('baseline: bare node:http'))!;
  const fastify = rows.find(isFastify)!;
  printTable(
    title,
    [
      'target',
      'req/s (2xx)',
      'vs fastify',
      'vs node:http',
      'CPU µs/req',
      'vs fastify (CPU)',
      'main thread µs/req',
      'vs fastify (main)',
      'p50 ms',
      'p99 ms',
      'max ms',
      'non-2xx',
      'errors',
    ],
    rows.map((r) => [
      r.target,
      r.reqPerSec,
      r.vsFastify ?? ratio(r.reqPerSec, fastify.reqPerSec),
      ratio(r.reqPerSec, bare.reqPerSec),
      r.cpuUsPerReq,
      ratio(fastify.cpuUsPerReq, r.cpuUsPerReq),
      r.mainUsPerReq,
      ratio(fastify.mainUsPerReq, r.mainUsPerReq),
      r.p50,
      r.p99,
      r.max,
      r.non2xx,
      r.errors,
    ]),
  );
}

/** Issue 26, target 4: each Vigil route (read cache on) at 50 connections, ≥ 0.6 of bare fastify and p99 ≤ 10 ms. */
function printTargets(rows: Measured[]): void {
  const vigil = rows.filter(
    (r) => r.connections === 50 && r.target.startsWith('Vigil') && !r.target.includes('cache off'),
  );
  if (vigil.length === 0) return;
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  printTable(
    `api: target ≥ 0.6 of bare fastify at 50 connections, p99 ≤ 10 ms (issue 26, target 4); ${new Date().toISOString()}, load ${load}`,
    [
      'state store',
      'target',
      'req/s',
      'bare fastify req/s',
      'ratio',
      'main thread µs/req',
      'bare fastify main µs/req',
      'CPU ratio (main thread)',
      'p99 ms',
      'met',
    ],
    vigil.map((r) => {
      const fastify = rows.find((b) => b.store === r.store && b.connections === 50 && isFastify(b))!;
      const share = r.vsFastify ?? r.reqPerSec / fastify.reqPerSec;
      const met = share >= 0.6 && r.p99 <= 10 && r.non2xx === 0 && r.errors === 0;
      return [
        storeName(r.store),
        r.target,
        r.reqPerSec,
        fastify.reqPerSec,
        round(share, 2),
        r.mainUsPerReq,
        fastify.mainUsPerReq,
        ratio(fastify.mainUsPerReq, r.mainUsPerReq),
        r.p99,
        met ? 'met' : 'missed',
      ];
    }),
  );
}

/** How cost grows: per connection count, req/s with its ratio to bare fastify at that count, and p99. */
function printGrowth(rows: Measured[], counts: number[], store: Store): void {
  const targets = [...new Set(rows.map((r) => r.target))];
  const at = (target: string, c: number) => rows.find((r) => r.target === target && r.connections === c);
  printTable(
    `api: req/s against connections, state store ${storeName(store)} (ratio to bare fastify at the same count; p99 ms)`,
    ['target', ...counts.map((c) => `${c} connections`)],
    targets.map((target) => [
      target,
      ...counts.map((c) => {
        const row = at(target, c);
        const fastify = rows.find((r) => r.connections === c && isFastify(r));
        if (!row || !fastify) return '';
        return `${row.reqPerSec} (${row.vsFastify ?? ratio(row.reqPerSec, fastify.reqPerSec)}); p99 ${row.p99}`;
      }),
    ]),
  );
}

/** Both baselines and both Vigil routes, each in its own process, at one connection count. */
async function measure(
  redis: boolean,
  cpuProf: boolean,
  duration: number,
  connections: number,
  compareCache: boolean,
): Promise<Row[]> {
  const rows: Row[] = [await baseline('http', duration, connections), await baseline('fastify', duration, connections)];
  rows.push(...(await measureVigil(redis, cpuProf, duration, connections, true)));
  if (compareCache) rows.push(...(await measureVigil(redis, cpuProf, duration, connections, false)));
  return rows;
}

/** Both Vigil routes on one fresh standalone process; with the read cache off when asked (the path before it). */
async function measureVigil(
  redis: boolean,
  cpuProf: boolean,
  duration: number,
  connections: number,
  readCache: boolean,
): Promise<Row[]> {
  const rows: Row[] = [];
  const suffix = runSuffix();
  const redisPrefix = `vigil-bench-${suffix}:`;
  const env: Record<string, string> = redis ? { REDIS_URL: benchConfig.redisUrl, REDIS_KEY_PREFIX: redisPrefix } : {};
  if (!readCache) env.VIGIL_READ_CACHE_TTL_MS = '0';
  const nodeArgs = cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${join(repoRoot, 'bench', 'results', 'profiles')}`] : [];
  const vigil = await spawnVigil({ ...env, VIGIL_STANDALONE_APPS: 'api,projector' }, nodeArgs);
  try {
    const account = await createAccount(vigil.url, vigil.adminKey);
    const created = await account.owner.request('POST', '/v1/variables', {
      key: 'BENCH_VARIABLE',
      value: 'some value',
    });
    if (created.status !== 201) throw new Error(`variable: ${created.status} ${JSON.stringify(created.body)}`);
    const headers = { authorization: `Bearer ${account.key}`, 'x-service-account': account.accountId };
    for (const path of ['/v1/variables/BENCH_VARIABLE', '/v1/accounts/me']) {
      const check = await account.owner.request('GET', path);
      if (check.status !== 200) throw new Error(`${path}: ${check.status} ${JSON.stringify(check.body)}`);
      const target = `Vigil GET ${path}${readCache ? '' : ' (read cache off)'}`;
      rows.push(await cannon(target, vigil.url + path, headers, duration, connections, vigil.process.pid));
    }
  } finally {
    await vigil.stop();
    if (redis) await cleanUp({ redisPrefix });
  }
  return rows;
}
