/**
 * API throughput: autocannon (50 connections, 20 s) against GET /v1/variables/{key} and
 * GET /v1/accounts/me with a real owner key, on the standalone process (its own process;
 * embedded adapters, or Redis with --redis). Baselines in the same run, same load generator:
 * a bare node:http hello endpoint and a bare fastify one, each in its own process.
 *
 * The ratio is against bare fastify (the framework Vigil runs on); node:http is shown too.
 * Beside req/s, the server's CPU time per request (from /proc) and its ratio to bare fastify's:
 * on a machine shared with other work that ratio holds where req/s swings with the neighbours.
 * --connections takes a list (10,50,200) for the "how cost grows" table: one row per count.
 *
 *   npm run bench -- api [--duration 20] [--connections 50] [--redis] [--cpu-prof]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { benchConfig } from '../config.ts';
import { freePort, repoRoot, spawnTs, waitForHttp } from '../support/processes.ts';
import { log, printMachine, printTable, writeResults } from '../support/report.ts';
import { cleanUp, runSuffix } from '../support/services.ts';
import { ratio, round } from '../support/stats.ts';
import { createAccount, spawnVigil } from '../support/vigil.ts';

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
}

/** CPU seconds a process has used so far (utime + stime from /proc, in clock ticks of 10 ms). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function cannon(
  target: string,
  url: string,
  headers: Record<string, string>,
  duration: number,
  connections: number,
  pid: number,
): Promise<Row> {
  log(`autocannon ${target}: ${connections} connections, ${duration} s`);
  const cpuBefore = cpuSeconds(pid);
  const result = await autocannon({ url, headers, duration, connections });
  const cpu = cpuSeconds(pid) - cpuBefore;
  return {
    cpuUsPerReq: Math.round((cpu * 1e6) / Math.max(1, result['2xx'] + result.non2xx)),
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

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '20' },
      connections: { type: 'string', default: '50' },
      redis: { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
    },
  });
  const duration = Number(values.duration);
  const counts = values.connections.split(',').map(Number);
  printMachine();
  const all: (Row & { connections: number })[] = [];
  for (const connections of counts) {
    const rows = await measure(values.redis, values['cpu-prof'], duration, connections);
    const bare = rows[0]!.reqPerSec;
    const fastify = rows[1]!.reqPerSec;
    printTable(
      `api: ${connections} connections × ${duration} s, state store ${values.redis ? 'Redis' : 'SQLite (embedded)'}`,
      [
        'target',
        'req/s (2xx)',
        'vs fastify',
        'vs node:http',
        'CPU µs/req',
        'vs fastify (CPU)',
        'p50 ms',
        'p90 ms',
        'p99 ms',
        'max ms',
        'non-2xx',
        'errors',
      ],
      rows.map((r) => [
        r.target,
        r.reqPerSec,
        ratio(r.reqPerSec, fastify),
        ratio(r.reqPerSec, bare),
        r.cpuUsPerReq,
        ratio(rows[1]!.cpuUsPerReq, r.cpuUsPerReq),
        r.p50,
        r.p90,
        r.p99,
        r.max,
        r.non2xx,
        r.errors,
      ]),
    );
    all.push(
      ...rows.map((r) => ({
        ...r,
        connections,
        vsFastify: round(r.reqPerSec / fastify, 3),
        cpuVsFastify: round(rows[1]!.cpuUsPerReq / r.cpuUsPerReq, 3),
      })),
    );
  }
  if (counts.length > 1) {
    const targets = [...new Set(all.map((r) => r.target))];
    printTable(
      'api: req/s against connections (how cost grows)',
      ['target', ...counts.map((c) => `${c} conn`), ...counts.map((c) => `p99 @${c}`)],
      targets.map((target) => [
        target,
        ...counts.map((c) => all.find((r) => r.target === target && r.connections === c)?.reqPerSec ?? ''),
        ...counts.map((c) => all.find((r) => r.target === target && r.connections === c)?.p99 ?? ''),
      ]),
    );
  }
  writeResults('api', {
    options: { duration, connections: counts, stateStore: values.redis ? 'redis' : 'sqlite' },
    rows: all,
  });
}

/** Both baselines and both Vigil routes, each in its own process, at one connection count. */
async function measure(redis: boolean, cpuProf: boolean, duration: number, connections: number): Promise<Row[]> {
  const rows: Row[] = [await baseline('http', duration, connections), await baseline('fastify', duration, connections)];
  const suffix = runSuffix();
  const redisPrefix = `vigil-bench-${suffix}:`;
  const env: Record<string, string> = redis ? { REDIS_URL: benchConfig.redisUrl, REDIS_KEY_PREFIX: redisPrefix } : {};
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
      rows.push(await cannon(`Vigil GET ${path}`, vigil.url + path, headers, duration, connections, vigil.process.pid));
    }
  } finally {
    await vigil.stop();
    if (redis) await cleanUp({ redisPrefix });
  }
  return rows;
}
