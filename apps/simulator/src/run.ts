import { registerChecks, resolveAccountId, type ApiTarget } from './api.ts';
import { createResultGenerator } from './generate.ts';
import type { SimulatorOptions } from './options.ts';
import { planChecks } from './plan.ts';
import { pump } from './pump.ts';
import { createRng } from './random.ts';
import { backfillRuns, realtimeRuns } from './schedule.ts';
import { summarise, Tally, type Summary } from './summary.ts';
import { httpSender, kafkaSender, type Sender } from './transport.ts';

export interface SimulateIo {
  /** Progress lines (stderr in the CLI). */
  log: (line: string) => void;
  /** Aborting stops producing; what is in flight still finishes and the summary is returned. */
  signal?: AbortSignal;
  /** How often to report progress; 0 turns it off. */
  progressMs?: number;
}

/** One simulation: register the checks, send their results at the target rate, summarise. */
export async function simulate(options: SimulatorOptions, io: SimulateIo): Promise<Summary> {
  const rng = createRng(options.seed);
  const planned = planChecks(rng, {
    count: options.checks,
    types: options.types,
    locations: options.locations,
    runTag: `sim-${options.seed}`.slice(0, 64),
  });
  const target: ApiTarget = { url: options.apiUrl, apiKey: options.apiKey, accountId: options.accountId };
  const accountId = await resolveAccountId(target, io.signal);
  io.log(`Registering ${planned.length} checks in account ${accountId} at ${options.apiUrl}`);
  const checks = await registerChecks(target, accountId, planned, { signal: io.signal });

  const source =
    options.backfillDays === null
      ? realtimeRuns(checks)
      : backfillRuns(rng, checks, { days: options.backfillDays, now: Date.now() });
  const mode = options.backfillDays === null ? 'realtime' : 'backfill';
  const generator = createResultGenerator(checks, options.seed);
  const sender: Sender =
    options.transport === 'kafka'
      ? kafkaSender({ brokers: options.kafkaBrokers, topicPrefix: options.topicPrefix })
      : httpSender({ apiUrl: options.apiUrl, ingestKey: options.ingestKey ?? '' });
  const tally = new Tally();
  const rate = options.rate === 0 ? 'as fast as the receiver takes them' : `at ${options.rate}/s`;
  const span =
    mode === 'backfill'
      ? `${source.total} results (${options.backfillDays} days of history)`
      : `results for ${options.durationSeconds} s`;
  io.log(`Sending ${span} ${rate} over ${sender.name}`);

  const progressMs = io.progressMs ?? 5_000;
  const progress =
    progressMs > 0
      ? setInterval(
          () =>
            io.log(
              `  ${tally.generated} generated, ${tally.accepted} accepted, ${tally.rejected} rejected, ${tally.failed} failed`,
            ),
          progressMs,
        )
      : undefined;
  let outcome: Awaited<ReturnType<typeof pump>>;
  try {
    outcome = await pump({
      source,
      generator,
      sender,
      tally,
      rate: options.rate,
      durationMs: options.durationSeconds === null ? Infinity : options.durationSeconds * 1000,
      batchSize: options.batchSize,
      concurrency: options.concurrency,
      signal: io.signal,
    });
  } finally {
    clearInterval(progress);
    await sender.close();
  }
  return summarise(tally, {
    transport: sender.name,
    mode,
    seed: options.seed,
    checks: checks.length,
    targetRate: options.rate,
    ...outcome,
  });
}
