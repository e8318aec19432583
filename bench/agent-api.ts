/**
 * The API's side of private locations at scale: N one-minute checks across L private locations on
 * the distributed deployment (Redis read models and due-queues, results handed to Kafka). The API
 * that serves the agents is its own process (apps/api, no other app in it); a standalone process
 * beside it (api and projector) takes the set-up writes. Agents are simulated by a lean driver in
 * this process that does what an agent does over HTTP (lease up to its free slots with a long
 * poll, post results in batches of up to 200 after 250 ms, one driver per location) but runs
 * nothing: the API's CPU is what counts, read from /proc for its pid over whole minutes.
 *
 *   npm run bench -- agent api [--checks 10000] [--locations 5] [--minutes 2] [--slots 500] [--profile]
 *
 * --profile runs the API with --cpu-prof (profile in the printed directory; summarise it with
 * `npm run bench -- profile <file>`).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { windowStart } from '#scheduling';
import { benchConfig } from './config.ts';
import { freePort, spawnTs, waitForHttp } from './support/processes.ts';
import { log, printMachine, printTable, writeResults } from './support/report.ts';
import { cleanUp, runSuffix } from './support/services.ts';
import { round, sleep } from './support/stats.ts';
import { createAccount, ENCRYPTION_KEY, spawnVigil, type Client } from './support/vigil.ts';

const MIN = 60_000;
const TICKS_PER_SECOND = 100;

function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

async function createChecks(owner: Client, count: number, slug: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const created = await owner.request('POST', '/v1/checks', {
        name: `${slug} ${i}`,
        checkType: 'API',
        frequency: 1,
        locations: [slug],
        request: { method: 'GET', url: `http://127.0.0.1:9/${slug}/${i}` },
      });
      if (created.status !== 201) throw new Error(`check creation: ${created.status} ${JSON.stringify(created.body)}`);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
}

interface Lease {
  checkId: string;
  window: number;
}

/** One simulated agent: leases what its free slots allow and posts a passing result for each at once. */
function driveAgent(apiUrl: string, key: string, slots: number, signal: AbortSignal, counts: { results: number }) {
  const headers = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    'x-vigil-agent-id': `bench-${Math.random().toString(36).slice(2, 10)}`,
    'x-vigil-agent-version': 'bench',
  };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${apiUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body), signal });
    const text = await response.text();
    if (response.status >= 400) throw new Error(`${path}: ${response.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  let held = 0;
  let pending: { checkId: string; window: number; result: Record<string, unknown> }[] = [];
  let flushing: Promise<void> | null = null;
  const flush = async () => {
    while (pending.length > 0) {
      const batch = pending.splice(0, 200);
      const answer = await post('/v1/agent/results', { results: batch });
      counts.results += Number(answer.accepted);
      held -= batch.length;
    }
  };
  const schedule = () => {
    flushing ??= sleep(250)
      .then(flush)
      .catch((error: unknown) => {
        if (!signal.aborted) log(`results: ${String(error)}`);
      })
      .finally(() => {
        flushing = null;
        if (pending.length > 0 && !signal.aborted) schedule();
      });
  };
  const loop = async () => {
    while (!signal.aborted) {
      try {
        const free = slots - held;
        if (free <= 0) {
          await sleep(50);
          continue;
        }
        const answer = await post('/v1/agent/leases', { max: free, waitMs: 20_000, inFlight: held });
        const leases = answer.leases as Lease[];
        held += leases.length;
        const startedAt = new Date().toISOString();
        for (const lease of leases)
          pending.push({
            checkId: lease.checkId,
            window: lease.window,
            result: { startedAt, hasFailures: false, responseTime: 12, statusCode: 200, attempts: 1 },
          });
        if (leases.length > 0) schedule();
      } catch (error) {
        if (!signal.aborted) {
          log(`leases: ${String(error)}`);
          await sleep(1_000);
        }
      }
    }
    pending = [];
  };
  return loop();
}

export async function runApiLoad(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      checks: { type: 'string', default: '10000' },
      locations: { type: 'string', default: '5' },
      minutes: { type: 'string', default: '2' },
      slots: { type: 'string', default: '500' },
      profile: { type: 'boolean', default: false },
    },
  });
  const total = Number(values.checks);
  const locations = Number(values.locations);
  const minutes = Number(values.minutes);
  printMachine();
  const suffix = runSuffix();
  const redisPrefix = `bench-agentapi-${suffix}:`;
  const topicPrefix = `bagentapi${suffix}.`;
  const database = `bench_agentapi_${suffix}`;
  const shared = {
    REDIS_URL: benchConfig.redisUrl,
    REDIS_KEY_PREFIX: redisPrefix,
    KAFKA_BROKERS: benchConfig.kafkaBrokers,
    KAFKA_TOPIC_PREFIX: topicPrefix,
    KAFKA_TOPIC_PARTITIONS: '4',
    CLICKHOUSE_URL: benchConfig.clickhouseUrl,
    CLICKHOUSE_DATABASE: database,
    VIGIL_ENCRYPTION_KEY: ENCRYPTION_KEY,
    VIGIL_AGENT_RATE_LIMIT_PER_MINUTE: '1000000',
    LOG_LEVEL: 'warn',
  };
  const control = await spawnVigil({ ...shared, VIGIL_STANDALONE_APPS: 'api,projector' });
  const port = await freePort();
  const profileDir = values.profile ? mkdtempSync(join(tmpdir(), 'vigil-agent-api-prof-')) : null;
  const api = spawnTs(
    'apps/api/src/main.ts',
    { ...shared, DATA_DIR: control.dataDir, PORT: String(port), HOST: '127.0.0.1' },
    profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  );
  const apiUrl = `http://127.0.0.1:${port}`;
  const abort = new AbortController();
  const drivers: Promise<void>[] = [];
  try {
    await waitForHttp(`${apiUrl}/ready`, api, 120_000);
    const counts = { results: 0 };
    const keys: string[] = [];
    const perLocation = Math.ceil(total / locations);
    log(`creating ${locations} private locations (one account each) with ${perLocation} one-minute checks each`);
    await Promise.all(
      Array.from({ length: locations }, async (_, i) => {
        const { owner } = await createAccount(control.url, control.adminKey);
        const slug = `bench-${i}`;
        const location = await owner.request<{ id: string }>('POST', '/v1/private-locations', {
          name: slug,
          slugName: slug,
        });
        keys[i] = (
          await owner.request<{ rawKey: string }>('POST', `/v1/private-locations/${location.body.id}/keys`)
        ).body.rawKey;
        await createChecks(owner, perLocation, slug);
      }),
    );
    for (const key of keys) drivers.push(driveAgent(apiUrl, key, Number(values.slots), abort.signal, counts));
    const idleCpu = cpuMsOf(api.pid);
    // Every new check runs its first window at once; the figures are over the following whole minutes.
    const from = windowStart(Date.now(), MIN) + 2 * MIN;
    const to = from + minutes * MIN;
    log(`warming up until ${new Date(from).toISOString()}, then measuring ${minutes} min`);
    await sleep(from - Date.now());
    const cpuFrom = cpuMsOf(api.pid);
    const resultsFrom = counts.results;
    await sleep(to - Date.now());
    const cpuMs = cpuMsOf(api.pid) - cpuFrom;
    const results = counts.results - resultsFrom;
    const figures = {
      checks: perLocation * locations,
      locations,
      minutes,
      slotsPerAgent: Number(values.slots),
      resultsPerMin: round(results / minutes, 0),
      apiCpuPercentOfCore: round((cpuMs / (minutes * MIN)) * 100, 1),
      apiCpuMsPerResult: round(cpuMs / Math.max(1, results), 3),
      apiCpuMsBeforeMeasuring: round(cpuFrom - idleCpu, 0),
    };
    printTable(
      'API serving private-location agents (distributed: Redis, Kafka, ClickHouse; API alone in its process)',
      ['checks', 'locations', 'results/min', 'API CPU % of a core', 'API CPU ms per result'],
      [[figures.checks, locations, figures.resultsPerMin, figures.apiCpuPercentOfCore, figures.apiCpuMsPerResult]],
    );
    log(`results written to ${writeResults('agent-api', figures)}`);
  } finally {
    abort.abort();
    await Promise.allSettled(drivers);
    await api.stop();
    await control.stop();
    await cleanUp({ database, topicPrefix, redisPrefix }).catch(() => undefined);
    if (profileDir) log(`CPU profile: ${join(profileDir, readdirSync(profileDir)[0] ?? '')}`);
  }
}
