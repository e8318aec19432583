/**
 * Webhook delivery: alert events fanned out to 10 channels on a loopback receiver (its own
 * process). Vigil (standalone: API + projector, embedded adapters or Redis with --redis) runs in
 * this process; the bench drives the `Dispatcher` of #notify directly with alert events, as the
 * dispatcher app's consumer hands them over (DISPATCHER_FEED: batches of one partition, two
 * partitions at once, the Dispatcher's steps and pipeline depth; --step and --depth override),
 * with the durable retry loop running: render, sign, deliver, record, retry. Each run's alerts
 * come from --checks checks (4), round robin, each check on a partition of its own (as keys
 * spread over the topic's 12; --checks 1 is one partition, the feed of earlier sittings). The alerter and the bus are not in the path.
 * Run 1: every endpoint answers 200. Run 2: 2 of the 10 endpoints fail each delivery's first
 * attempt; the retry (short delay) must bring the delivered count to exactly events × channels.
 * Baseline, same run: as many plain POSTs of the same size from a tight loop, with as many in
 * flight as Vigil may send to one receiver, from two clients: a node:http keep-alive pool and an
 * undici Agent. The ceiling is the higher of the two (what the machine can do with plain POSTs,
 * not what one client does); both ratios are printed.
 * Before the runs, the cost of each stage of a delivery is measured alone (see costs.ts). After
 * them, the floor: the least a dispatcher that keeps what the spec needs costs (floor.ts, as
 * minimal.ts runs it), against the same receiver with the same size and failures, so each target
 * row also says how far Vigil is from what any such dispatcher reaches on this machine.
 *
 *   npm run bench -- webhooks [--events 10000] [--channels 10] [--concurrency 32] [--retry-ms 200] [--redis]
 *                             [--cpu-prof | --heap-prof] [--step 250] [--depth 2] [--no-node-flags] [--checks 4] [--tsx]
 * It runs itself again in a child process with the dispatcher app's V8 flags (DISPATCHER_NODE_FLAGS),
 * from a bundle built as dist/ is (bench/results/bundle/), unless --no-node-flags (this process as
 * it is) or --tsx (the TypeScript sources through tsx).
 * --cpu-prof writes a V8 profile of each dispatcher run under bench/results/profiles/ (summarise
 * it with `npm run bench -- profile <file>`); --heap-prof writes where each run allocates instead
 * (a .heapprofile, which the same command summarises by bytes allocated).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Agent as UndiciAgent } from 'undici';
import { createLogger, createSecretBox, generateApiKey, parseEncryptionKey } from '#core';
import type { WebhookChannel } from '#domain';
import { checkContext, DeliveryStore, Dispatcher, sampleAlert, templateVariablesFor } from '#notify';
import { renderTemplates } from '#webhooks';
import type { SqliteStateStore } from '#statestore';
import { ReadModels } from '#readmodels';
import { DISPATCHER_FEED, DISPATCHER_NODE_FLAGS } from '../../apps/dispatcher/index.ts';
import { loadStandaloneConfig, startStandalone } from '../../apps/standalone/index.ts';
import { benchConfig } from '../config.ts';
import { freePort, repoRoot, spawnTs, waitForHttp } from '../support/processes.ts';
import { log, printMachine, printTable, writeResults } from '../support/report.ts';
import { cleanUp, runSuffix } from '../support/services.ts';
import { ratio, round, sleep } from '../support/stats.ts';
import { measureCosts, type CostRow } from './costs.ts';
import { runFloor, SPEC_FLOOR } from './floor.ts';
import { createRunProfiler } from './profiler.ts';
import { createAccount, createChecks, ENCRYPTION_KEY } from '../support/vigil.ts';

interface Stats {
  received: number;
  ok: number;
  failed: number;
  duplicates: number;
  distinct: number;
  bytes: number;
}

interface Row {
  run: string;
  expected: number;
  delivered: number;
  attempts: number;
  seconds: number;
  perSecond: number;
  /** CPU of this process (user + system) per delivery: less distorted by a busy machine than the rate. */
  cpuUs: number;
  /** CPU of this process's main thread per delivery: the event loop every attempt goes through. */
  mainUs: number;
  /** CPU of the receiver process per HTTP request (it shares the machine's cores with the sender). */
  receiverUs: number;
  exact: boolean | '';
}

export async function run(argv: string[]): Promise<void> {
  // The Dispatcher runs in this process as it runs in production: bundled like dist/ (unless
  // --tsx) and with the dispatcher app's V8 flags.
  const flagged = DISPATCHER_NODE_FLAGS.every((flag) => process.execArgv.includes(flag));
  if (!argv.includes('--no-node-flags') && (!flagged || (!bundled() && !argv.includes('--tsx'))))
    return runAsShipped(argv);
  const { values } = parseArgs({
    args: argv,
    options: {
      events: { type: 'string', default: '10000' },
      channels: { type: 'string', default: '10' },
      concurrency: { type: 'string', default: '32' },
      'retry-ms': { type: 'string', default: '200' },
      redis: { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      // Where the dispatcher runs allocate (sampled, freed objects included): a .heapprofile each.
      'heap-prof': { type: 'boolean', default: false },
      // The Dispatcher's steps (events) and how many run at once; the app's by default.
      step: { type: 'string' },
      depth: { type: 'string' },
      // Without the dispatcher app's V8 flags (DISPATCHER_NODE_FLAGS), in this process, to compare.
      'no-node-flags': { type: 'boolean', default: false },
      // From the TypeScript sources through tsx rather than the bundle (how the tenth and earlier sittings ran it).
      tsx: { type: 'boolean', default: false },
      // Checks each run's alerts come from, each on a partition of its own (1: one partition).
      checks: { type: 'string', default: '4' },
    },
  });
  const events = Number(values.events);
  const channels = Number(values.channels);
  const concurrency = Number(values.concurrency);
  const retryMs = Number(values['retry-ms']);
  const checks = Math.max(1, Number(values.checks));
  const failing = Math.round(channels * 0.2);
  const expected = events * channels;
  const profiles = join(process.cwd(), 'bench', 'results', 'profiles');
  const profiler = values['cpu-prof']
    ? createRunProfiler(profiles)
    : values['heap-prof']
      ? createRunProfiler(profiles, 'heap')
      : null;
  printMachine();
  console.log(
    `V8 flags of this process: ${process.execArgv.filter((arg) => arg.startsWith('--max')).join(' ') || 'none'}; code: ${bundled() ? 'bundled by esbuild as dist/ ships' : 'TypeScript sources through tsx'}`,
  );

  const port = await freePort();
  const receiver = spawnTs('bench/webhooks/receiver.ts', {}, [], [String(port)]);
  const base = `http://127.0.0.1:${port}`;
  const stats = async () => (await (await fetch(`${base}/stats`)).json()) as Stats;
  const reset = () => fetch(`${base}/reset`, { method: 'POST' });

  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-webhooks-'));
  const redisPrefix = `vigil-bench-${runSuffix()}:`;
  const adminKey = generateApiKey();
  const running = await startStandalone(
    loadStandaloneConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      VIGIL_ADMIN_KEY: adminKey,
      VIGIL_ENCRYPTION_KEY: ENCRYPTION_KEY,
      VIGIL_STANDALONE_APPS: 'api,projector',
      VIGIL_RATE_LIMIT_PER_MINUTE: '1000000',
      ...(values.redis ? { REDIS_URL: benchConfig.redisUrl, REDIS_KEY_PREFIX: redisPrefix } : {}),
    }),
    createLogger({ level: 'silent' }),
  );
  const rows: Row[] = [];
  let costs: CostRow[] | undefined;
  try {
    await waitForHttp(`${base}/stats`, receiver);
    const account = await createAccount(running.url, adminKey);
    // Each run's alerts come from `checks` checks, all subscribed to that run's channels.
    const created = await createChecks(account.owner, 2 * checks, ['eu-west-1']);
    const okChecks = created.slice(0, checks);
    const failingChecks = created.slice(checks);
    const checkA = okChecks[0]!;
    const checkB = failingChecks[0]!;
    const channelIds: Record<string, string[]> = { [checkA]: [], [checkB]: [] };
    for (const [checkId, failCount, group] of [
      [checkA, 0, okChecks],
      [checkB, failing, failingChecks],
    ] as const) {
      for (let k = 0; k < channels; k++) {
        const path = k < failCount ? `/fail/${k}` : `/ok/${k}`;
        const created = await account.owner.request<{ id: string }>('POST', '/v1/alert-channels', {
          type: 'WEBHOOK',
          config: { name: `bench ${k}`, url: base + path, webhookSecret: 'bench-secret' },
        });
        if (created.status !== 201) throw new Error(`channel: ${created.status} ${JSON.stringify(created.body)}`);
        for (const subscriber of group) {
          const subscribed = await account.owner.request('PUT', `/v1/alert-channels/${created.body.id}/subscriptions`, {
            checkId: subscriber,
            activated: true,
          });
          if (subscribed.status !== 200)
            throw new Error(`subscription: ${subscribed.status} ${JSON.stringify(subscribed.body)}`);
        }
        channelIds[checkId]!.push(created.body.id);
      }
    }

    const stateStore = running.platform.stateStore;
    // Start the SQLite store's write thread before anything is measured (once per process).
    await (stateStore as SqliteStateStore).writeOffThread?.([{ op: 'set', key: 'bench:warm', value: '1' }]);
    const readModels = new ReadModels(stateStore);
    const deliveries = new DeliveryStore(stateStore);
    const box = createSecretBox(parseEncryptionKey(ENCRYPTION_KEY));
    const costContext = await checkContext(readModels, checkA);
    const costView = await readModels.alertChannel(channelIds[checkA]![0]!);
    if (!costContext || !costView) throw new Error('check or channel missing');
    log('cost of each stage of a delivery, measured alone');
    costs = await measureCosts({
      readModels,
      box,
      accountId: account.accountId,
      context: costContext,
      view: costView,
      channels,
      redis: values.redis ? { url: benchConfig.redisUrl, prefix: redisPrefix } : undefined,
    });
    const dispatcher = new Dispatcher({
      readModels,
      store: deliveries,
      box,
      log: createLogger({ level: 'silent' }),
      timeoutMs: 10_000,
      retry: { maxRetries: 5, delayMs: retryMs },
      allowPrivate: true,
      userAgent: 'Vigil/bench',
      publicUrl: 'http://localhost:3000',
      region: 'local',
      // As the dispatcher app runs it: the receiver sees at most `concurrency` at once, like the baseline.
      concurrency: concurrency * 2,
      perOrigin: concurrency,
      stepSize: values['step'] ? Number(values['step']) : DISPATCHER_FEED.step,
      pipelineDepth: values['depth'] ? Number(values['depth']) : DISPATCHER_FEED.depth,
    });
    dispatcher.start();

    const fanOut = async (label: string, checkId: string): Promise<Row> => {
      const group = checkId === checkA ? okChecks : failingChecks;
      const contexts = await Promise.all(group.map((id) => checkContext(readModels, id)));
      if (contexts.some((context) => !context)) throw new Error('check context missing');
      // Round robin over the checks; check i's alerts are partition i's (its key on the topic).
      const alerts = Array.from({ length: events }, (_, i) =>
        sampleAlert(account.accountId, contexts[i % contexts.length]!, 'ALERT_FAILURE'),
      );
      const partitions = group.map((id) => alerts.filter((alert) => alert.checkId === id));
      await reset();
      log(`${label}: ${events} alert events × ${channels} channels`);
      await profiler?.start();
      const started = performance.now();
      const cpu = process.cpuUsage();
      const ticks = { main: threadTicks(process.pid), receiver: processTicks(receiver.pid) };
      const threads = threadsByName();
      // As the app's consumer feeds it: DISPATCHER_FEED.partitions partitions at once, each
      // partition's alerts in order, one handler call (batch) at a time, each acknowledged once
      // its records are durable.
      let nextPartition = 0;
      await Promise.all(
        Array.from({ length: DISPATCHER_FEED.partitions }, async () => {
          while (nextPartition < partitions.length) {
            const partition = partitions[nextPartition++]!;
            for (let i = 0; i < partition.length; i += DISPATCHER_FEED.batch)
              await dispatcher.handleAlerts(partition.slice(i, i + DISPATCHER_FEED.batch));
          }
        }),
      );
      let seen = await stats();
      const deadline = Date.now() + 600_000;
      while (seen.distinct < expected && Date.now() < deadline) {
        await sleep(20);
        seen = await stats();
      }
      const seconds = (performance.now() - started) / 1000;
      const cpuUs = cpuPer(cpu, expected);
      const mainUs = ticksPer(threadTicks(process.pid) - ticks.main, expected);
      const receiverTicks = processTicks(receiver.pid) - ticks.receiver;
      // Where the CPU off the main thread goes: the state store's write thread, V8's GC helpers, libuv's pool.
      const others = [...threadsByName(threads)]
        .filter(([, used]) => used > 0)
        .map(([name, used]) => `${name} ${ticksPer(used, expected)}`);
      console.log(`${label}: CPU µs per delivery by thread (name#id): ${others.join(', ')}`);
      if (profiler) log(`profile: ${await profiler.stop(checkId === checkA ? 'all-ok' : 'failures')}`);
      await sleep(retryMs * 3 + 1000); // anything late or doubled would show now
      seen = await stats();
      let logged = 0;
      for (const id of channelIds[checkId]!)
        logged += (await deliveries.attempts(id, { limit: 1, page: 1 }, 'delivered')).total;
      const exact = seen.distinct === expected && seen.ok === expected && seen.duplicates === 0 && logged === expected;
      console.log(
        `${label}: receiver got ${seen.ok} deliveries (${seen.distinct} distinct ids, ${seen.duplicates} duplicates) and ${seen.failed} failed first attempts; Vigil's delivery log shows ${logged} delivered; expected ${expected}: ${exact ? 'EXACT' : 'MISMATCH'}`,
      );
      return {
        run: label,
        expected,
        delivered: seen.ok,
        attempts: seen.received,
        seconds: round(seconds, 2),
        perSecond: Math.round(expected / seconds),
        cpuUs,
        mainUs,
        receiverUs: ticksPer(receiverTicks, seen.received),
        exact,
      };
    };
    /** A row of the table: the receiver's counts, and what this process measured. */
    const rowOf = (label: string, seen: Stats, measured: Omit<Row, 'run' | 'expected' | 'delivered' | 'attempts'>) => ({
      run: label,
      expected,
      delivered: seen.ok,
      attempts: seen.received,
      ...measured,
    });
    let bodyBytes = 1000;
    // The ceiling runs before and after Vigil's, and the ratio takes their mean: the load of a
    // shared machine drifts over the minutes a run takes.
    const plain = async (client: PlainClient, when: string): Promise<Row> => {
      await reset();
      const label = `baseline: plain POSTs, keep-alive, ${client}, ${when}`;
      log(`${label}: ${expected} × ${bodyBytes} bytes, ${concurrency} at once`);
      const cpu = process.cpuUsage();
      const ticks = { main: threadTicks(process.pid), receiver: processTicks(receiver.pid) };
      const seconds = await (client === 'node:http' ? plainPosts : undiciPosts)(
        `${base}/ok/plain`,
        expected,
        concurrency,
        bodyBytes,
      );
      const cpuUs = cpuPer(cpu, expected);
      const mainUs = ticksPer(threadTicks(process.pid) - ticks.main, expected);
      const receiverUs = ticksPer(processTicks(receiver.pid) - ticks.receiver, expected);
      return rowOf(label, await stats(), {
        seconds: round(seconds, 2),
        perSecond: Math.round(expected / seconds),
        cpuUs,
        mainUs,
        receiverUs,
        exact: '',
      });
    };
    const floor = async (failingNow: number): Promise<Row> => {
      await reset();
      const label =
        failingNow === 0
          ? 'floor: minimal dispatcher keeping what the spec needs, all endpoints answer'
          : `floor: the same, ${failingNow} of 10 endpoints fail the first attempt`;
      log(`${label}: ${expected} deliveries × ${bodyBytes} bytes, ${concurrency} at once`);
      const main = threadTicks(process.pid);
      const row = await runFloor(SPEC_FLOOR, {
        base,
        dir: dataDir,
        receiverPid: receiver.pid,
        deliveries: expected,
        concurrency,
        bytes: bodyBytes,
        failing: failingNow,
        retryMs,
      });
      const seen = await stats();
      return rowOf(label, seen, {
        seconds: round(expected / row.perSecond, 2),
        perSecond: row.perSecond,
        cpuUs: row.cpuUs,
        mainUs: ticksPer(threadTicks(process.pid) - main, expected),
        receiverUs: row.receiverUs,
        exact: seen.ok === expected && seen.duplicates === 0,
      });
    };
    // Sized like the bodies Vigil sends for this channel config.
    bodyBytes = Buffer.byteLength(
      renderTemplates(
        (costView.channel as WebhookChannel).config,
        await templateVariablesFor(
          readModels,
          sampleAlert(account.accountId, costContext, 'ALERT_FAILURE'),
          costContext,
          'http://localhost:3000',
        ),
        { region: 'local' },
      ).body,
    );
    rows.push(await plain('node:http', 'before'));
    rows.push(await plain('undici', 'before'));
    rows.push(await fanOut('Vigil Dispatcher, all endpoints answer', checkA));
    rows.push(
      await fanOut(
        `Vigil Dispatcher, ${failing} of ${channels} endpoints fail the first attempt (retry after ${retryMs} ms)`,
        checkB,
      ),
    );
    await dispatcher.stop();
    // The floor, same receiver and size: a minimal dispatcher that keeps what the spec needs.
    for (const failingNow of [0, failing]) rows.push(await floor(failingNow));

    rows.push(await plain('node:http', 'after'));
    rows.push(await plain('undici', 'after'));
  } finally {
    await running.stop();
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
    if (values.redis) await cleanUp({ redisPrefix });
  }

  // Each client's ceiling is the mean of its runs before and after; the target compares against the higher.
  const ceilings = PLAIN_CLIENTS.map((client) => {
    const plains = rows.filter((r) => r.run.startsWith(`baseline: plain POSTs, keep-alive, ${client},`));
    return {
      client,
      perSecond: Math.round(plains.reduce((sum, r) => sum + r.perSecond, 0) / Math.max(1, plains.length)),
      cpuUs: round(plains.reduce((sum, r) => sum + r.cpuUs, 0) / Math.max(1, plains.length), 1),
    };
  });
  const highest = ceilings.reduce((best, c) => (c.perSecond > best.perSecond ? c : best));
  const baseline = highest.perSecond;
  const baselineCpu = highest.cpuUs;
  for (const c of ceilings)
    console.log(`ceiling (${c.client}): ${c.perSecond}/s, ${c.cpuUs} µs CPU per POST (mean of before and after)`);
  console.log(`ceiling used for the targets: the higher, ${highest.client} (${baseline}/s)`);
  costs ??= [];
  const overhead = costs.reduce((sum, row) => sum + (row.once ? 0 : row.usPerDelivery), 0);
  printTable(
    'what one delivery costs the dispatcher, each stage measured alone (CPU µs per delivery)',
    ['stage', 'µs per delivery', 'note'],
    [
      ...costs.map((row) => [row.stage, row.usPerDelivery, row.note]),
      [
        'all of the above, per delivery',
        round(overhead, 1),
        `alone, they would cap one process at ${Math.round(1e6 / overhead)}/s`,
      ],
      [
        'the POST (baseline, for scale)',
        round(1e6 / baseline, 1),
        `wall time per POST at ${concurrency} in flight (${baseline}/s)`,
      ],
    ],
  );
  printTable(
    `webhooks: ${events} events × ${channels} channels, ${concurrency} in flight to the receiver, state store ${values.redis ? 'Redis' : 'SQLite (embedded)'}`,
    [
      'run',
      'expected',
      'delivered (2xx)',
      'HTTP requests',
      'seconds',
      'deliveries/s',
      `vs plain POSTs (${highest.client})`,
      'CPU µs/delivery',
      'main thread µs',
      'receiver µs/request',
      'CPU vs plain',
      'exact',
    ],
    rows.map((r) => [
      r.run,
      r.expected,
      r.delivered,
      r.attempts,
      r.seconds,
      r.perSecond,
      ratio(r.perSecond, baseline),
      r.cpuUs,
      r.mainUs,
      r.receiverUs,
      ratio(baselineCpu, r.cpuUs),
      r.exact === '' ? '' : r.exact ? 'yes' : 'NO',
    ]),
  );
  // Issue 26's targets, from this run's figures: each ratio is to the mean of the plain runs.
  const [quiet, failures] = rows.filter((r) => r.run.startsWith('Vigil'));
  const [quietFloor, failuresFloor] = rows.filter((r) => r.run.startsWith('floor'));
  const verdicts = [
    { name: 'all endpoints answer', row: quiet, floor: quietFloor, target: 0.5 },
    { name: `${failing} of ${channels} fail their first attempt`, row: failures, floor: failuresFloor, target: 0.4 },
  ].map(({ name, row, floor, target }) => {
    const achieved = row ? row.perSecond / baseline : 0;
    const met = achieved >= target && row?.exact === true;
    const both = ceilings
      .map((c) => `${round(row ? row.perSecond / c.perSecond : 0, 2)} of ${c.client} ${c.perSecond}/s`)
      .join(', ');
    console.log(
      `target (${name}): >= ${target} of plain keep-alive POSTs (the higher ceiling), exact: ${round(achieved, 2)} (${row?.perSecond ?? 0}/s vs ${baseline}/s, ${highest.client}; ${both}; ${row?.cpuUs ?? 0} µs CPU per delivery vs ${baselineCpu}), exact ${row?.exact ? 'yes' : 'NO'}: ${met ? 'MET' : 'MISSED'}`,
    );
    if (row) {
      // What the two cores allow: the sender's and the receiver's CPU per delivery, and how busy
      // the main thread (one core at most) was.
      const perDelivery = row.cpuUs + (row.receiverUs * row.attempts) / row.expected;
      console.log(
        `  CPU per delivery, Vigil ${row.cpuUs} µs (main thread ${row.mainUs}) + receiver ${round((row.receiverUs * row.attempts) / row.expected, 1)} µs = ${round(perDelivery, 1)} µs: ${cores()} cores allow at most ${Math.round((cores() * 1e6) / perDelivery)}/s (${round((cores() * 1e6) / perDelivery / baseline, 2)} of plain); main thread busy ${Math.round((row.mainUs * row.perSecond) / 1e4)}% of the run`,
      );
    }
    // What any dispatcher that keeps what the spec needs reaches here (floor.ts), and Vigil against it.
    const floorRatio = floor ? round(floor.perSecond / baseline, 3) : null;
    if (floor && row)
      console.log(
        `  floor, same run: ${floor.perSecond}/s, ${round(floor.perSecond / baseline, 2)} of plain at ${floor.cpuUs} µs CPU per delivery; Vigil is ${round(row.perSecond / floor.perSecond, 2)} of it (CPU ${round(floor.cpuUs / row.cpuUs, 2)})`,
      );
    return { name, target, ratio: round(achieved, 3), floor: floorRatio, exact: row?.exact === true, met };
  });
  console.log(
    `load average at the end: ${loadavg()
      .map((l) => round(l, 2))
      .join(' ')}`,
  );
  writeResults('webhooks', {
    targets: verdicts,
    baseline: { perSecond: baseline, cpuUs: baselineCpu, client: highest.client },
    ceilings,
    options: {
      events,
      channels,
      concurrency,
      retryMs,
      failingChannels: failing,
      stateStore: values.redis ? 'redis' : 'sqlite',
    },
    costs,
    rows,
  });
}

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const TICK_US = 10_000;

/** CPU clock ticks (user + system) of one thread or process from a /proc stat file; 0 where there is none. */
function statTicks(path: string): number {
  try {
    const fields = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}
const threadTicks = (pid: number) => statTicks(`/proc/${pid}/task/${pid}/stat`);
const processTicks = (pid: number) => statTicks(`/proc/${pid}/stat`);
const ticksPer = (ticks: number, count: number) => (count > 0 ? round((ticks * TICK_US) / count, 1) : 0);
const cores = () => availableParallelism();

/**
 * CPU ticks of this process's threads by name and id (the main thread as "main"), less `since`
 * when given (then the busiest eight). Threads that ended in between are missing from both.
 */
function threadsByName(since?: Map<string, number>): Map<string, number> {
  const byName = new Map<string, number>();
  const byTid = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    let name = 'main';
    if (Number(tid) !== process.pid) {
      try {
        name = readFileSync(`/proc/${process.pid}/task/${tid}/comm`, 'utf8').trim();
      } catch {
        continue;
      }
    }
    const ticks = statTicks(`/proc/${process.pid}/task/${tid}/stat`);
    byTid.set(`${name}#${tid}`, ticks);
  }
  // Threads share names (the write thread and V8's helpers are all "node"): each is listed, busiest first.
  const used = [...byTid].map(([key, ticks]) => [key, ticks - (since?.get(key) ?? 0)] as const);
  for (const [key, ticks] of used.sort((a, b) => b[1] - a[1]).slice(0, 8)) byName.set(key, ticks);
  // Kept per thread for the next call's subtraction.
  if (!since) return byTid;
  return byName;
}

function cpuPer(since: NodeJS.CpuUsage, count: number): number {
  const used = process.cpuUsage(since);
  return round((used.user + used.system) / count, 1);
}

const PLAIN_CLIENTS = ['node:http', 'undici'] as const;
type PlainClient = (typeof PLAIN_CLIENTS)[number];

const plainBody = (bytes: number) => JSON.stringify({ padding: 'x'.repeat(Math.max(0, bytes - 15)) });

/** `count` POSTs of `bytes` bytes with `concurrency` in flight over a node:http keep-alive pool; returns seconds. */
async function plainPosts(url: string, count: number, concurrency: number, bytes: number): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const body = plainBody(bytes);
  let next = 0;
  const post = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const request = http.request(
        url,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'webhook-id': `plain-${i}`,
          },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve());
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await post(next++);
    }),
  );
  agent.destroy();
  return (performance.now() - started) / 1000;
}

/** The same POSTs from an undici Agent (one connection per request in flight, keep-alive); returns seconds. */
async function undiciPosts(url: string, count: number, concurrency: number, bytes: number): Promise<number> {
  const agent = new UndiciAgent({ connections: concurrency, pipelining: 1 });
  const { origin, pathname } = new URL(url);
  const body = plainBody(bytes);
  const length = String(Buffer.byteLength(body));
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const response = await agent.request({
          origin,
          path: pathname,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': length, 'webhook-id': `plain-${i}` },
          body,
        });
        await response.body.dump();
      }
    }),
  );
  await agent.close();
  return (performance.now() - started) / 1000;
}

/** Whether this process runs a bundle built by scripts/build-server.mjs (its banner sets this). */
const bundled = () => (globalThis as { __vigilDist?: string }).__vigilDist !== undefined;

/**
 * This bench again, in a node process started with the dispatcher app's V8 flags, from a bundle
 * built as dist/ is (production runs `node dist/<app>.js`; tsx wraps every function of the
 * sources in a naming helper; the bundle used 18-26% less CPU per delivery, docs/benchmarks.md's eleventh
 * sitting), or with --tsx from the sources.
 */
function runAsShipped(argv: string[]): Promise<void> {
  let entry = new URL('../run.ts', import.meta.url).pathname;
  const loader = argv.includes('--tsx') ? ['--import', 'tsx'] : [];
  if (loader.length === 0) {
    const dir = 'bench/results/bundle';
    execFileSync(process.execPath, ['scripts/build-server.mjs', '--outdir', dir, 'bench=bench/run.ts'], {
      cwd: repoRoot,
      stdio: 'inherit',
    });
    entry = join(repoRoot, dir, 'bench.js');
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...DISPATCHER_NODE_FLAGS, ...loader, entry, 'webhooks', ...argv], {
      stdio: 'inherit',
    });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`webhooks bench exited with ${code}`))));
  });
}
