/**
 * `npm run bench -- capacity` prints docs/capacity.md's plans from the unit costs in costs.ts.
 * `npm run bench -- capacity --around <bench> [its flags]` runs another bench and prints the CPU the
 * shared servers (Redis, Kafka, ClickHouse) used meanwhile, which the other benches do not count:
 * divided by that bench's units of work, it gives the server side of a unit cost.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COSTS, SOURCES, WORKLOADS } from './costs.ts';
import { planCapacity, type Plan } from './model.ts';
import { printMachine, printTable, writeResults } from '../support/report.ts';
import { round } from '../support/stats.ts';

const TICKS = 100;
const SERVICES = join(fileURLToPath(new URL('../..', import.meta.url)), '.services');
const SERVERS = { redis: 'redis/redis.pid', kafka: 'kafka/kafka.pid', clickhouse: 'clickhouse/clickhouse.pid' };

/** User + system CPU of a process so far, in ms, or undefined when its pid file names none. */
function cpuMs(pidFile: string): number | undefined {
  try {
    const pid = readFileSync(join(SERVICES, pidFile), 'utf8').trim();
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
  } catch {
    return undefined;
  }
}

async function around(argv: string[]): Promise<void> {
  const before = Object.fromEntries(Object.entries(SERVERS).map(([name, file]) => [name, cpuMs(file)]));
  const started = Date.now();
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', fileURLToPath(new URL('../run.ts', import.meta.url)), ...argv],
      {
        stdio: 'inherit',
      },
    );
    child.once('exit', resolve);
  });
  const seconds = (Date.now() - started) / 1000;
  const rows = Object.entries(SERVERS).map(([name, file]) => {
    const a = before[name];
    const b = cpuMs(file);
    const used = a === undefined || b === undefined ? undefined : b - a;
    return [
      name,
      used === undefined ? 'not running' : round(used, 0),
      used === undefined ? '' : round(used / 10 / seconds, 1),
    ];
  });
  printTable(
    `Server CPU while \`${argv.join(' ')}\` ran (${round(seconds, 0)} s, exit ${code})`,
    ['server', 'CPU ms', '% of a core'],
    rows,
  );
  writeResults('capacity-around', { argv, seconds, servers: Object.fromEntries(rows.map((row) => [row[0], row[1]])) });
  if (code !== 0) throw new Error(`bench exited with ${code}`);
}

function printPlans(): void {
  const plans: [string, Plan][] = WORKLOADS.map((work) => [
    `${work.checks.toLocaleString('en')} checks`,
    planCapacity(COSTS, work),
  ]);
  const row = (label: string, value: (plan: Plan) => string | number) => [
    label,
    ...plans.map(([, plan]) => value(plan)),
  ];
  printTable(
    'Capacity plan (one-minute checks, 1,000 analytics readers; docs/capacity.md)',
    ['', ...plans.map(([name]) => name)],
    [
      row('runs = results per second', (p) => round(p.runsPerSecond, 0)),
      row('analytics reads per second', (p) => round(p.readsPerSecond, 0)),
      row('webhook deliveries per second', (p) => round(p.deliveriesPerSecond, 1)),
      row('runner processes', (p) => p.runners),
      row('ingestor processes', (p) => p.ingestors),
      row('Kafka partitions (results topic)', (p) => p.partitions),
      row('Kafka broker cores', (p) => round(p.kafkaCores, 2)),
      row('API processes (analytics readers)', (p) => p.apis),
      row('dispatcher processes', (p) => p.dispatchers),
      row('Redis cores (runs) / instances', (p) => `${round(p.redisCores, 2)} / ${p.redisInstances}`),
      row('busiest location queue, share of a Redis core', (p) => round(p.busiestQueueCore, 2)),
      row('Redis memory, MiB', (p) => round(p.redisMemoryMiB, 0)),
      row('ClickHouse cores', (p) => round(p.clickhouseCores, 2)),
      row('ClickHouse disk, GiB (retention)', (p) => round(p.clickhouseDiskGiB, 1)),
      row('first bottleneck', (p) => p.firstBottleneck),
    ],
  );
  printTable(
    'Unit costs (CPU ms per unit unless named)',
    ['unit', 'value', 'measured by'],
    Object.entries(COSTS).map(([key, value]) => [key, value, SOURCES[key as keyof typeof COSTS]]),
  );
}

export async function run(argv: string[]): Promise<void> {
  printMachine();
  if (argv[0] === '--around') return around(argv.slice(1));
  printPlans();
}
