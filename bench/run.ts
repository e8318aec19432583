/**
 * Benchmarks: `npm run bench -- <name> [--flags]`. Each prints a table and writes JSON (with the
 * machine it ran on) under bench/results/. Every figure stands beside a ceiling or baseline
 * measured in the same run, as a ratio: these machines are shared and noisy.
 *
 *   ingest            HTTP → Kafka → ingestor → ClickHouse, and embedded into DuckDB, vs raw INSERTs
 *   analytics         the query matrix through the API vs raw engine SQL, ClickHouse, DuckDB, PostgreSQL
 *   analytics-window  one check read again (the check window) against its first read and PostgreSQL
 *   analytics-reader  one check with 1M results through the reader, and ClickHouse percentile methods
 *   api               autocannon on GET /v1/variables/{key} and /v1/accounts/me vs a bare node:http server
 *   webhooks          alert events fanned out by the Dispatcher vs plain POSTs, with and without failures
 *   channels          alert channel senders per type (Slack, PagerDuty, email…) vs WEBHOOK, to loopback receivers
 *   eventstore        appends (1 and 8 writers) and $all catch-up on PostgreSQL beside SQLite
 *   ping              POST /ping/{token} across heartbeat checks vs bare fastify
 *   runner            N one-minute API checks on loopback run by one runner: runs/min, schedule delay, CPU per run;
 *                     with --replicas K --redis, K runner processes pinned to a core each against one (scale-out)
 *   agent             a private-location agent over HTTP beside the in-cluster runner: runs/min, API CPU
 *   console           the web console in Chromium (chart, overview) and GET /status/{slug} vs bare fastify
 *   kafka-clients     kafkajs against @platformatic/kafka: produce and consume the same records
 *   scripts-sandbox   the sandbox's cost per run: sandboxed `node -e 0` beside a bare spawn
 *   scripts           MULTI_STEP and PLAYWRIGHT script runs/min in the sandbox, beside bare node and bare Playwright Test
 *   artifacts         failing (and passing) BROWSER runs/min with screenshots and traces kept, beside the same without
 *   script-artifacts  the same for PLAYWRIGHT script runs in the sandbox (tracing, screenshot and hand-out)
 *   artifacts-capture CPU of one viewport or full-page screenshot by page height, per megapixel
 *   checkly-deploy    checkly deploy of N checks (first, unchanged, dry run, destroy) vs N single check POSTs
 *   capacity          docs/capacity.md's plans from measured unit costs; --around <bench> adds server CPU
 *   profile           summarises .cpuprofile files (a bench's --cpu-prof) by area and function, .heapprofile files (--heap-prof) by bytes
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

type Runner = (argv: string[]) => Promise<void>;

const benches: Record<string, () => Promise<Runner>> = {
  ingest: async () => (await import('./ingest/run.ts')).run,
  analytics: async () => (await import('./analytics/matrix.ts')).run,
  'analytics-window': async () => (await import('./analytics/window.ts')).run,
  api: async () => (await import('./api/run.ts')).run,
  webhooks: async () => (await import('./webhooks/run.ts')).run,
  channels: async () => (await import('./channels.ts')).run,
  eventstore: async () => (await import('./eventstore.ts')).run,
  runner: async () => (await import('./runner.ts')).run,
  agent: async () => (await import('./agent.ts')).run,
  ping: async () => (await import('./ping.ts')).run,
  console: async () => (await import('./console/run.ts')).run,
  'kafka-clients': async () => (await import('./kafka-clients.ts')).run,
  profile: async () => (await import('./support/profile.ts')).run,
  capacity: async () => (await import('./capacity/run.ts')).run,
  scripts: async () => (await import('./scripts.ts')).run,
  'scripts-sandbox': async () => (await import('./scripts-sandbox.ts')).run,
  artifacts: async () => (await import('./artifacts.ts')).run,
  'script-artifacts': async () => (await import('./script-artifacts.ts')).run,
  'artifacts-capture': async () => (await import('./artifacts-capture.ts')).run,
  'checkly-deploy': async () => (await import('./checkly-deploy.ts')).run,
  // The first analytics bench parses its own argv and runs on import: start it as a child.
  'analytics-reader': async () => (argv) =>
    new Promise((resolve, reject) => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', fileURLToPath(new URL('./analytics/run.ts', import.meta.url)), ...argv],
        { stdio: 'inherit' },
      );
      child.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`analytics-reader exited with ${code}`)),
      );
    }),
};

const [name, ...argv] = process.argv.slice(2);
if (!name || !(name in benches)) {
  console.error(`usage: npm run bench -- <${Object.keys(benches).join('|')}> [--flags]`);
  process.exit(2);
}
try {
  await (
    await benches[name]!()
  )(argv);
  process.exit(0);
} catch (error) {
  console.error(error);
  process.exit(1);
}
