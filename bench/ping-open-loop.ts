/**
 * Heartbeat pings, open-loop (issue 26, target 5: ≥ 5,000 pings/s on the distributed deployment).
 * Arrivals come at a fixed rate R spread over many heartbeat checks, whatever is outstanding, as
 * cron traffic does; latency runs from each ping's scheduled arrival. R steps up; a step holds
 * when its p99 is within the bound (default 1 s), every ping got a 2xx (no errors, no non-2xx) and
 * the generator kept its schedule (sent ≥ 0.95 R). The figure is the highest R that holds.
 * The same steps run first against a bare fastify endpoint (GET /hello), in the same run, so the
 * load generator is shown to reach each rate by itself. A ping is answered once durable, as in
 * production: Kafka acknowledged it (--distributed), or the SQLite journal committed it.
 *
 *   npm run bench -- ping --open-loop [--distributed | --redis] [--rates 1000,2000,3000,4000,5000,6000]
 *                         [--step 10] [--checks 3000] [--sockets 1000] [--p99-bound 1000] [--cpu-prof]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pingEnv } from './ping.ts';
import { openLoop, type OpenLoopStep } from './support/open-loop.ts';
import { freePort, repoRoot, spawnTs, waitForHttp } from './support/processes.ts';
import { log, printMachine, printTable, writeResults } from './support/report.ts';
import { cleanUp } from './support/services.ts';
import { createAccount, spawnVigil, type Client } from './support/vigil.ts';

type Step = OpenLoopStep & { cpuMsPerOk: number; load: string; holds: boolean };

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** user + system CPU of a process so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function step(
  label: string,
  url: string,
  method: 'GET' | 'POST',
  path: (i: number) => string,
  rate: number,
  seconds: number,
  sockets: number,
  pid: number,
  boundMs: number,
): Promise<Step> {
  log(`${label}: ${rate}/s for ${seconds} s (load ${loadAverage()})`);
  const load = loadAverage();
  const before = cpuMs(pid);
  const result = await openLoop({ url, method, path, rate, seconds, sockets, drainMs: Math.max(10_000, boundMs * 5) });
  const cpu = cpuMs(pid) - before;
  const holds = result.errors === 0 && result.non2xx === 0 && result.p99 <= boundMs && result.okPerSec >= 0.95 * rate;
  return { ...result, cpuMsPerOk: Math.round((1000 * cpu) / Math.max(1, result.ok)) / 1000, load, holds };
}

async function createHeartbeats(owner: Client, count: number): Promise<string[]> {
  const tokens: string[] = [];
  let next = 0;
  // A few at a time: creation is not what is measured.
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const created = await owner.request<{ heartbeat: { pingToken: string } }>('POST', '/v1/checks', {
        name: `cron ${i}`,
        checkType: 'HEARTBEAT',
        heartbeat: { period: 1, periodUnit: 'minutes', grace: 1, graceUnit: 'minutes' },
      });
      if (created.status !== 201) throw new Error(`check creation failed: ${created.status}`);
      tokens.push(created.body.heartbeat.pingToken);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return tokens;
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'open-loop': { type: 'boolean', default: true },
      rates: { type: 'string', default: '1000,2000,3000,4000,5000,6000' },
      step: { type: 'string', default: '10' },
      // Each check is pinged every checks/R seconds (round robin); a cron job pings once a period (≥ 1 min).
      checks: { type: 'string', default: '3000' },
      sockets: { type: 'string', default: '1000' },
      'p99-bound': { type: 'string', default: '1000' },
      redis: { type: 'boolean', default: false },
      distributed: { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
    },
  });
  const rates = values.rates.split(',').map(Number);
  if (rates.some((r) => !Number.isInteger(r) || r < 1)) throw new Error('--rates: a list of positive integers');
  const seconds = Number(values.step);
  const sockets = Number(values.sockets);
  const bound = Number(values['p99-bound']);
  const deployment = values.distributed ? 'Kafka + Redis' : values.redis ? 'Redis' : 'embedded';
  printMachine();

  // The generator against bare fastify first, at the same rates: what this process can drive.
  const port = await freePort();
  const bare = spawnTs('bench/api/hello.ts', {}, [], ['fastify', String(port)]);
  const baseline: Step[] = [];
  try {
    await waitForHttp(`http://127.0.0.1:${port}/hello`, bare);
    // Untimed: the sockets open and the JIT warms, as for Vigil below.
    await step('warm-up', `http://127.0.0.1:${port}`, 'GET', () => '/hello', rates[0]!, 3, sockets, bare.pid, bound);
    for (const rate of rates)
      baseline.push(
        await step(
          'bare fastify GET /hello',
          `http://127.0.0.1:${port}`,
          'GET',
          () => '/hello',
          rate,
          Math.min(seconds, 5),
          sockets,
          bare.pid,
          bound,
        ),
      );
  } finally {
    await bare.stop();
  }

  const env = pingEnv(values);
  const profiles = join(repoRoot, 'bench', 'results', 'profiles');
  const vigil = await spawnVigil(env, values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : []);
  const pings: Step[] = [];
  try {
    const { owner } = await createAccount(vigil.url, vigil.adminKey);
    log(`creating ${values.checks} heartbeat checks`);
    const tokens = await createHeartbeats(owner, Number(values.checks));
    const path = (i: number) => `/ping/${tokens[i % tokens.length]}`;
    // Untimed: the first pings of each token fill the token cache and open the producers.
    await step('warm-up', vigil.url, 'POST', path, rates[0]!, 3, sockets, vigil.process.pid, bound);
    let failed = 0;
    for (const rate of rates) {
      const measured = await step(
        `POST /ping/{token}, ${deployment}`,
        vigil.url,
        'POST',
        path,
        rate,
        seconds,
        sockets,
        vigil.process.pid,
        bound,
      );
      pings.push(measured);
      // Two steps in a row that do not hold: higher rates will not either.
      failed = measured.holds ? 0 : failed + 1;
      if (failed === 2) break;
    }
  } finally {
    await vigil.stop();
    await cleanUp({
      redisPrefix: env.REDIS_KEY_PREFIX,
      topicPrefix: env.KAFKA_TOPIC_PREFIX,
      database: env.CLICKHOUSE_DATABASE,
    }).catch((error: unknown) => log(`clean-up: ${String(error)}`));
  }

  const head = [
    'target',
    'rate asked /s',
    'sent /s',
    '2xx /s',
    'p50 ms',
    'p99 ms',
    'max ms',
    'non-2xx',
    'errors',
    'most in flight',
    'CPU ms / 2xx',
    'load',
    `holds (p99 ≤ ${bound} ms, 0 errors)`,
  ];
  const row = (target: string) => (s: Step) => [
    target,
    s.rate,
    s.sentPerSec,
    s.okPerSec,
    s.p50,
    s.p99,
    s.max,
    s.non2xx,
    s.errors,
    s.maxInFlight,
    s.cpuMsPerOk,
    s.load,
    s.holds ? 'yes' : 'no',
  ];
  printTable(`ping, open-loop: ${values.checks} checks, ${seconds} s per step, ${sockets} sockets at most`, head, [
    ...baseline.map(row('bare fastify GET /hello')),
    ...pings.map(row(`POST /ping/{token}, ${deployment}`)),
  ]);
  const best = Math.max(0, ...pings.filter((s) => s.holds).map((s) => s.rate));
  const bestFastify = Math.max(0, ...baseline.filter((s) => s.holds).map((s) => s.rate));
  const top = pings.find((s) => s.rate === best);
  log(
    `target ≥ 5,000 pings/s open-loop (${deployment}), p99 ≤ ${bound} ms, 0 errors: highest rate held ${best}/s` +
      (top ? ` (p50 ${top.p50} ms, p99 ${top.p99} ms, ${top.cpuMsPerOk} ms CPU per ping)` : '') +
      `; bare fastify held ${bestFastify}/s of the rates asked → ${best >= 5000 ? 'met' : 'missed'}`,
  );
  const file = writeResults('ping-open-loop', { deployment, rates, seconds, sockets, bound, baseline, pings, best });
  log(`results: ${file}`);
}
