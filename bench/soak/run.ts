/**
 * The soak: the distributed deployment (projector, API, ingestor, alerter, dispatcher, runner, each
 * its own process, on PostgreSQL, Redis, Kafka and ClickHouse from scripts/services.sh) under a
 * steady mixed load for a while, watched from outside:
 * - results through POST /v1/check-results at a steady rate;
 * - control-plane writes and reads (variables, checks, alert channels) and analytics reads;
 * - failures and recoveries of some checks alerting to two webhook channels on a local receiver
 *   that fails 10% of requests at random, so retries happen;
 * - the runner running one-minute API checks against the receiver.
 * Every --sample-seconds: each process's RSS (/proc/<pid>/status) and its event-loop delay p99
 * (its /metrics). At the end: a table, bench/results/soak-<date>.json and .png, and a verdict
 * (exit code 0 or 1): RSS grew less than 10% from --baseline-minute to the end in every process,
 * every acknowledged result is in ClickHouse exactly once, every webhook id reached the receiver,
 * no 5xx.
 *
 *   npm run soak -- [--minutes 10] [--rate 300] [--api-rate 10] [--sample-seconds 30]
 *                   [--baseline-minute 3] [--checks 40] [--alerting 10] [--runner-checks 20]
 *                   [--fail-rate 0.1] [--retry-ms 1000] [--max-growth 10]
 */
import { parseArgs } from 'node:util';
import { log, printMachine, printTable, writeResults } from '../support/report.ts';
import { round, sleep, summarise } from '../support/stats.ts';
import { startDeployment, type Deployment } from './deployment.ts';
import { plot } from './plot.ts';
import { sample, type Sample } from './sampler.ts';
import { controlPlane, incidents, ingest, setUp, type IngestState, type OpCounts } from './traffic.ts';
import { watchServices } from './watch.ts';
import { decide } from './verdict.ts';
import { deliveries, drainConsumers, storedResults } from './verify.ts';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    minutes: { type: 'string', default: '10' },
    rate: { type: 'string', default: '300' },
    'api-rate': { type: 'string', default: '10' },
    'sample-seconds': { type: 'string', default: '30' },
    'baseline-minute': { type: 'string' },
    checks: { type: 'string', default: '40' },
    alerting: { type: 'string', default: '10' },
    'runner-checks': { type: 'string', default: '20' },
    'fail-rate': { type: 'string', default: '0.1' },
    'retry-ms': { type: 'string', default: '1000' },
    'max-growth': { type: 'string', default: '10' },
    partitions: { type: 'string', default: '4' },
  },
});
const o = {
  minutes: Number(values.minutes),
  rate: Number(values.rate),
  apiRate: Number(values['api-rate']),
  sampleSeconds: Number(values['sample-seconds']),
  // Minute 3 of a 10-minute run; a short trial compares from its middle instead.
  baselineMinute: Number(values['baseline-minute'] ?? Math.min(3, Number(values.minutes) / 2)),
  checks: Number(values.checks),
  alerting: Number(values.alerting),
  runnerChecks: Number(values['runner-checks']),
  failRate: Number(values['fail-rate']),
  retryMs: Number(values['retry-ms']),
  maxGrowth: Number(values['max-growth']),
  partitions: Number(values.partitions),
};
for (const [name, value] of Object.entries(o))
  if (!Number.isFinite(value) || value < 0) {
    console.error(`--${name}: expected a non-negative number, got ${value}`);
    process.exit(2);
  }

printMachine();
log(`starting the distributed deployment (${o.minutes} min soak)`);
let deployment: Deployment | undefined;
process.once('SIGINT', () => {
  log('interrupted: stopping the deployment');
  void (deployment?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
});

let pass = false;
try {
  const d = (deployment = await startDeployment({
    failRate: o.failRate,
    retryDelayMs: o.retryMs,
    partitions: o.partitions,
  }));
  log(`pids: ${d.apps.map((a) => `${a.name} ${a.process.pid}`).join(', ')}; receiver ${d.receiver.pid}`);
  const s = await setUp(d, { checks: o.checks, alerting: o.alerting, runnerChecks: o.runnerChecks, rate: o.rate });
  log(
    `account ${s.accountId}: ${s.ingestChecks.length} ingested checks (${s.alertingChecks.length} alerting to 2 channels), ${s.runnerChecks.length} runner checks`,
  );

  const watcher = watchServices();
  const durationMs = o.minutes * 60_000;
  const started = performance.now();
  const until = () => performance.now() - started >= durationMs;
  const samples: Sample[] = [];
  const ingestState: IngestState = {
    sent: 0,
    acknowledged: 0,
    unacknowledged: [],
    rejected: 0,
    latenciesMs: [],
    counts: {},
  };
  const apiCounts: OpCounts = {};
  const apiLatencies: number[] = [];
  const sampling = (async () => {
    for (let k = 0; ; k++) {
      const at = k * o.sampleSeconds * 1000;
      if (at > durationMs) break;
      await sleep(started + at - performance.now());
      const batch = await Promise.all(d.apps.map((app) => sample(app, at / 1000)));
      samples.push(...batch);
      const ops = Object.values(apiCounts).reduce((sum, row) => sum + Object.values(row).reduce((a, b) => a + b, 0), 0);
      log(
        `t=${at / 1000}s ${batch.map((b) => `${b.app} ${b.rssMiB} MiB/${b.loopP99Ms} ms`).join(', ')}; results acknowledged ${ingestState.acknowledged}, API ops ${ops}`,
      );
    }
  })();
  await Promise.all([
    ingest(d, s, { rate: o.rate, tickMs: 250 }, until, ingestState),
    controlPlane(s, { rate: o.apiRate, receiverUrl: d.receiverUrl }, until, apiCounts, apiLatencies),
    sampling,
  ]);
  const exited = d.apps
    .filter((app) => app.process.child.exitCode !== null || app.process.child.signalCode !== null)
    .map((app) => `${app.name} (${app.process.child.exitCode ?? app.process.child.signalCode})`);

  log('load stopped; waiting for the consumers to drain');
  const lag = await drainConsumers(d, 180_000);
  log(`consumer lag ${lag}; counting results in ClickHouse`);
  const results = await storedResults(d, s, ingestState);
  log(`checking webhook ids at the receiver`);
  const webhooks = await deliveries(d, s, 120_000);

  await watcher.stop();
  const counts: OpCounts = { ...ingestState.counts, ...apiCounts };
  const verdict = decide({
    samples,
    baselineSecond: o.baselineMinute * 60,
    maxGrowthPct: o.maxGrowth,
    incidents,
    outages: watcher.outages,
    exited,
    loss: {
      acknowledged: results.acknowledged,
      missing: results.missing,
      rowsFinal: results.rowsFinal,
      distinctIds: results.distinctIds,
      expectedWebhooks: webhooks.expected,
      deliveredWebhooks: webhooks.delivered,
    },
  });
  pass = verdict.pass;

  printTable(
    `RSS and event-loop delay per process (baseline: minute ${o.baselineMinute}; samples every ${o.sampleSeconds} s)`,
    [
      'process',
      'RSS start MiB',
      `RSS min ${o.baselineMinute}`,
      'RSS end',
      'growth %',
      'max after',
      'trend MiB/min',
      'loop p99 median ms',
      'loop p99 max ms',
    ],
    verdict.growth.map((g) => [
      g.app,
      g.startMiB,
      g.baselineMiB,
      g.endMiB,
      g.growthPct,
      g.maxAfterBaselineMiB,
      g.trendMiBPerMin,
      g.loopP99MedianMs,
      g.loopP99MaxMs,
    ]),
  );
  printTable(
    'requests',
    ['operation', '2xx', '4xx', '5xx', 'failed'],
    Object.entries(counts)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([op, row]) => [op, row['2xx'] ?? 0, row['4xx'] ?? 0, row['5xx'] ?? 0, row.error ?? 0]),
  );
  const ingestLatency = summarise(ingestState.latenciesMs);
  const apiLatency = summarise(apiLatencies);
  printTable(
    'nothing lost?',
    ['what', 'figure'],
    [
      ['results sent / acknowledged', `${ingestState.sent} / ${results.acknowledged}`],
      ['results per second (sent)', round(ingestState.sent / (durationMs / 1000))],
      ['API operations per second (done)', round(apiLatencies.length / (durationMs / 1000))],
      ['acknowledged results missing in ClickHouse', results.missing],
      ['unacknowledged results stored all the same', results.storedUnacknowledged],
      ['distinct ids stored / rows after de-duplication (FINAL)', `${results.distinctIds} / ${results.rowsFinal}`],
      ['rows before merge (redeliveries)', results.rowsRaw],
      ['results rejected by the API', ingestState.rejected],
      ['runner results stored', results.runnerResults],
      ['alert events on the topic (messages)', `${webhooks.alertEvents} (${webhooks.alertMessages})`],
      ['alert events by type', JSON.stringify(webhooks.byType)],
      [
        'webhook ids expected / delivered / missing',
        `${webhooks.expected} / ${webhooks.delivered} / ${webhooks.missing}`,
      ],
      [
        'receiver: requests / 500s / duplicates of a delivered id',
        `${webhooks.receiver.received} / ${webhooks.receiver.failed} / ${webhooks.receiver.duplicates}`,
      ],
      ['ingest answer p50 / p99 ms', `${ingestLatency.p50} / ${ingestLatency.p99}`],
      ['API op answer p50 / p99 ms', `${apiLatency.p50} / ${apiLatency.p99}`],
      ['consumer lag left after drain', lag],
    ],
  );
  const file = writeResults('soak', {
    options: o,
    pids: Object.fromEntries(d.apps.map((a) => [a.name, a.process.pid])),
    verdict,
    results,
    webhooks,
    ingest: {
      sent: ingestState.sent,
      acknowledged: ingestState.acknowledged,
      rejected: ingestState.rejected,
      ratePerSecond: round(ingestState.sent / (durationMs / 1000)),
      latencyMs: ingestLatency,
    },
    api: { latencyMs: apiLatency },
    counts,
    consumerLagAfterDrain: lag,
    outages: watcher.outages.map((o) => ({
      ...o,
      from: new Date(o.from).toISOString(),
      to: new Date(o.to).toISOString(),
    })),
    incidents: incidents.slice(0, 2000).map((i) => ({ ...i, at: new Date(i.at).toISOString() })),
    samples,
  });
  const png = file.replace(/\.json$/, '.png');
  await plot(
    samples,
    `Vigil soak, ${o.minutes} min: ${o.rate} results/s, ${o.apiRate} API ops/s, webhooks failing ${o.failRate * 100}% — ${verdict.pass ? 'PASS' : 'FAIL'}`,
    o.baselineMinute,
    png,
  );
  console.log(`wrote ${png}`);
  const disturbed = watcher.outages.length > 0 ? ' (disturbed: a backing service was stopped during the run)' : '';
  console.log(`\nverdict: ${verdict.pass ? 'PASS' : 'FAIL'}${disturbed}`);
  for (const reason of verdict.reasons) console.log(`  - ${reason}`);
  for (const note of verdict.notes) console.log(`  note: ${note}`);
} catch (error) {
  console.error(error);
} finally {
  await deployment?.stop();
}
process.exit(pass ? 0 : 1);
