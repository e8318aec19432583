/**
 * Heartbeat pings: autocannon POSTs /ping/{token} across many heartbeat checks, on the standalone
 * process (embedded adapters, or Redis with --redis). Every cron job of every user hits this
 * route, so it is measured beside a bare fastify endpoint in the same run, same load generator.
 * The target is 5,000 pings/s. Each accepted ping is a durable result: group-committed to the bus
 * (the SQLite log embedded, Kafka distributed) before its answer; embedded, DuckDB gets it just after.
 *
 *   npm run bench -- ping [--duration 15] [--connections 50] [--checks 200] [--redis | --distributed] [--cpu-prof]
 *   npm run bench -- ping --open-loop [--rates 1000,2000,...] ... (arrivals at fixed rates; see ping-open-loop.ts)
 *
 * --cpu-prof writes the Vigil process's V8 profile under bench/results/profiles/ (summarise it
 * with `npm run bench -- profile <file>`).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type autocannonModule from 'autocannon';
import { freePort, repoRoot, spawnTs, waitForHttp } from './support/processes.ts';
import { log, printMachine, printTable, writeResults } from './support/report.ts';
import { ratio } from './support/stats.ts';
import { createAccount, spawnVigil } from './support/vigil.ts';
import { benchConfig } from './config.ts';
import { requireTool } from '../scripts/npm-tools.ts';

// A bench-only client, installed on first use (scripts/npm-tools.ts), not by `npm install`.
const autocannon = requireTool<typeof autocannonModule>('autocannon');

interface Row {
  target: string;
  perSec: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
  /** CPU time of the serving process (user + system, all its threads) per 2xx answer. */
  cpuMsPer: number;
}

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/** user + system CPU of a process so far, in ms (from /proc: the machine is shared, wall time is not). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

async function cannon(
  target: string,
  url: string,
  requests: autocannonModule.Request[],
  duration: number,
  connections: number,
  pid: number,
): Promise<Row> {
  log(`autocannon ${target}: ${connections} connections, ${duration} s`);
  const cpuBefore = cpuMs(pid);
  const result = await autocannon({ url, requests, duration, connections });
  const cpu = cpuMs(pid) - cpuBefore;
  return {
    target,
    perSec: Math.round(result['2xx'] / result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    cpuMsPer: Math.round((1000 * cpu) / Math.max(1, result['2xx'])) / 1000,
  };
}

/** The ping route alone (no runner, alerter or dispatcher competing for the two cores), on the deployment asked for. */
export function pingEnv(values: { redis?: boolean; distributed?: boolean }): Record<string, string> {
  const env: Record<string, string> = { VIGIL_PING_RATE_PER_MINUTE: '1000000', VIGIL_STANDALONE_APPS: 'api,projector' };
  const suffix = Date.now().toString(36);
  if (values.redis || values.distributed) {
    env.REDIS_URL = benchConfig.redisUrl;
    env.REDIS_KEY_PREFIX = `vigil-bench-ping-${suffix}:`;
  }
  // Distributed: a ping is durable once Kafka acknowledges it, as every result is there.
  if (values.distributed) {
    env.KAFKA_BROKERS = benchConfig.kafkaBrokers;
    env.KAFKA_TOPIC_PREFIX = `bench-ping-${suffix}.`;
    env.CLICKHOUSE_URL = benchConfig.clickhouseUrl;
    env.CLICKHOUSE_DATABASE = `bench_ping_${suffix}`;
  }
  return env;
}

export async function run(argv: string[]): Promise<void> {
  if (argv.includes('--open-loop')) return (await import('./ping-open-loop.ts')).run(argv);
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '15' },
      connections: { type: 'string', default: '50' },
      checks: { type: 'string', default: '200' },
      redis: { type: 'boolean', default: false },
      distributed: { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
    },
  });
  const duration = Number(values.duration);
  const connections = Number(values.connections);
  printMachine();

  const port = await freePort();
  const bare = spawnTs('bench/api/hello.ts', {}, [], ['fastify', String(port)]);
  let baseline: Row;
  try {
    await waitForHttp(`http://127.0.0.1:${port}/hello`, bare);
    baseline = await cannon(
      'baseline: bare fastify GET /hello',
      `http://127.0.0.1:${port}`,
      [{ path: '/hello' }],
      duration,
      connections,
      bare.pid,
    );
  } finally {
    await bare.stop();
  }

  const env = pingEnv(values);
  const profiles = join(repoRoot, 'bench', 'results', 'profiles');
  const vigil = await spawnVigil(env, values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : []);
  let pings: Row;
  try {
    const { owner } = await createAccount(vigil.url, vigil.adminKey);
    const tokens: string[] = [];
    let next = 0;
    for (let i = 0; i < Number(values.checks); i += 1) {
      const created = await owner.request<{ heartbeat: { pingToken: string } }>('POST', '/v1/checks', {
        name: `cron ${i}`,
        checkType: 'HEARTBEAT',
        heartbeat: { period: 1, periodUnit: 'minutes', grace: 1, graceUnit: 'minutes' },
      });
      if (created.status !== 201) throw new Error(`check creation failed: ${created.status}`);
      tokens.push(created.body.heartbeat.pingToken);
    }
    pings = await cannon(
      `POST /ping/{token}, ${tokens.length} checks, ${values.distributed ? 'Kafka + Redis' : values.redis ? 'Redis' : 'embedded'}`,
      vigil.url,
      // Each request takes the next check's token across all connections. (A list per connection
      // would have every connection walk the tokens in step: 50 pings of one check at the same
      // moment, which its rate limit forbids in production and which the per-token ordering of
      // pings then serialises.)
      [
        {
          method: 'POST',
          setupRequest: (request) => ({ ...request, path: `/ping/${tokens[next++ % tokens.length]}` }),
        },
      ],
      duration,
      connections,
      vigil.process.pid,
    );
  } finally {
    await vigil.stop();
  }

  const rows = [baseline, pings];
  printTable(
    `ping: ${connections} connections × ${duration} s (target ≥ 5,000 pings/s)`,
    ['target', 'per s (2xx)', 'vs fastify', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'CPU ms / 2xx'],
    rows.map((r) => [
      r.target,
      r.perSec,
      ratio(r.perSec, baseline.perSec),
      r.p50,
      r.p99,
      r.non2xx,
      r.errors,
      r.cpuMsPer,
    ]),
  );
  const file = writeResults('ping', { duration, connections, rows });
  log(`results: ${file}`);
}
