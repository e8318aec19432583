/**
 * Private-location agents: N one-minute API checks run by one agent over HTTP, beside N other
 * checks run by the in-cluster runner of the same standalone process, in the same run. The API
 * (standalone, its own process) is measured alone first: its CPU while it serves only the agent's
 * lease and result routes (and stores the results), as a share of one core.
 *
 *   phase 1: the agent's checks only; agent runs/min and the API process's CPU
 *   phase 2: the runner's checks added; agent and runner runs/min side by side
 *
 * Runs are counted where they land: a loopback target (in this process) counts requests per path
 * prefix, by arrival time, over whole minutes after a warm-up window.
 *
 *   npm run bench -- agent [--checks 1000] [--concurrency 200] [--minutes 1]
 *
 * `npm run bench -- agent api …` measures the API alone at scale instead (bench/agent-api.ts).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createLogger } from '#core';
import { windowStart } from '#scheduling';
import { runApiLoad } from './agent-api.ts';
import { startAgent } from '../apps/runner/index.ts';
import { log, printMachine, printTable, writeResults } from './support/report.ts';
import { round, sleep } from './support/stats.ts';
import { createAccount, spawnVigil, type Client } from './support/vigil.ts';

const MIN = 60_000;
const TICKS_PER_SECOND = 100;

/** User + system CPU of a process so far, in ms (Linux /proc). */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

async function createChecks(owner: Client, count: number, location: string, url: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const created = await owner.request('POST', '/v1/checks', {
        name: `${location} ${i}`,
        checkType: 'API',
        frequency: 1,
        locations: [location],
        request: { method: 'GET', url: `${url}/${i}` },
      });
      if (created.status !== 201) throw new Error(`check creation: ${created.status} ${JSON.stringify(created.body)}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

export async function run(argv: string[]): Promise<void> {
  if (argv[0] === 'api') return runApiLoad(argv.slice(1));
  const { values } = parseArgs({
    args: argv,
    options: {
      checks: { type: 'string', default: '1000' },
      concurrency: { type: 'string', default: '200' },
      minutes: { type: 'string', default: '1' },
    },
  });
  const checks = Number(values.checks);
  const minutes = Number(values.minutes);
  printMachine();

  const hits = { agent: 0, runner: 0 };
  let counting = false;
  const target = createServer((req, res) => {
    if (counting) hits[req.url?.startsWith('/agent/') ? 'agent' : 'runner'] += 1;
    res.end('ok');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;

  const vigil = await spawnVigil({
    VIGIL_RUNNER_LOCATION: 'local',
    VIGIL_RUNNER_DEFAULT_LOCATION: 'local',
    VIGIL_ALLOW_PRIVATE_TARGETS: 'true',
    VIGIL_AGENT_RATE_LIMIT_PER_MINUTE: '1000000',
  });
  // The standalone process at rest (projector, runner and queues polling): subtracted from the API's figures.
  const idleFrom = cpuMsOf(vigil.process.pid);
  await sleep(30_000);
  const idlePercent = ((cpuMsOf(vigil.process.pid) - idleFrom) / 30_000) * 100;
  const agentCpuStart = process.cpuUsage();
  let agent: ReturnType<typeof startAgent> | undefined;
  try {
    const { owner } = await createAccount(vigil.url, vigil.adminKey);
    const location = await owner.request<{ id: string }>('POST', '/v1/private-locations', {
      name: 'bench',
      slugName: 'bench-pl',
    });
    const key = await owner.request<{ rawKey: string }>('POST', `/v1/private-locations/${location.body.id}/keys`);
    log(`creating ${checks} one-minute checks for the agent`);
    await createChecks(owner, checks, 'bench-pl', `${targetUrl}/agent`);
    agent = startAgent({
      log: createLogger({ level: 'warn', name: 'bench-agent' }),
      settings: {
        apiUrl: vigil.url,
        key: key.body.rawKey,
        concurrency: Number(values.concurrency),
        allowPrivate: true,
        pollWaitMs: 20_000,
        version: 'bench',
      },
    });

    const measure = async (label: string) => {
      // The first window runs every new check at once; the figures are over the next whole minutes.
      const from = windowStart(Date.now(), MIN) + 2 * MIN;
      const to = from + minutes * MIN;
      log(`${label}: warming up until ${new Date(from).toISOString()}, measuring ${minutes} min`);
      await sleep(from - Date.now());
      hits.agent = 0;
      hits.runner = 0;
      counting = true;
      const apiCpu = cpuMsOf(vigil.process.pid);
      await sleep(to - Date.now());
      counting = false;
      return {
        agentRunsPerMin: round(hits.agent / minutes, 0),
        runnerRunsPerMin: round(hits.runner / minutes, 0),
        apiCpuPercentOfCore: round(((cpuMsOf(vigil.process.pid) - apiCpu) / (minutes * MIN)) * 100, 1),
      };
    };

    const alone = await measure('phase 1 (agent only)');
    log(`creating ${checks} one-minute checks for the in-cluster runner`);
    await createChecks(owner, checks, 'local', `${targetUrl}/runner`);
    const both = await measure('phase 2 (agent and runner)');
    const agentCpu = process.cpuUsage(agentCpuStart);

    const figures = {
      checks,
      minutes,
      concurrency: Number(values.concurrency),
      phase1: alone,
      phase2: both,
      apiIdleCpuPercentOfCore: round(idlePercent, 1),
      agentToRunner: round(both.agentRunsPerMin / Math.max(1, both.runnerRunsPerMin), 2),
      // Linear in runs per minute, above the idle process: what 10,000 one-minute checks through agents would cost.
      apiCpuPercentAt10kPerMin: round(
        (Math.max(0, alone.apiCpuPercentOfCore - idlePercent) * 10_000) / Math.max(1, alone.agentRunsPerMin),
        1,
      ),
      benchProcessCpuMs: round((agentCpu.user + agentCpu.system) / 1000, 0),
    };
    printTable(
      'Private-location agent vs in-cluster runner (one-minute API checks on loopback)',
      ['phase', 'agent runs/min', 'runner runs/min', 'API CPU % of a core'],
      [
        ['idle', '-', '-', figures.apiIdleCpuPercentOfCore],
        ['agent only', alone.agentRunsPerMin, '-', alone.apiCpuPercentOfCore],
        ['agent + runner', both.agentRunsPerMin, both.runnerRunsPerMin, both.apiCpuPercentOfCore],
      ],
    );
    log(
      `agent/runner ${figures.agentToRunner}; API CPU for 10,000 agent runs/min (linear, above idle): ${figures.apiCpuPercentAt10kPerMin}% of a core (includes storing the results in DuckDB)`,
    );
    log(`results written to ${writeResults('agent', figures)}`);
  } finally {
    await agent?.stop();
    await vigil.stop();
    await new Promise((resolve) => target.close(resolve));
  }
}
