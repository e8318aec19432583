import { describe, expect, it } from 'vitest';
import type { CheckResultInput } from '#domain';
import { createResultGenerator } from '../../apps/simulator/src/generate.ts';
import { FatalRequestError } from '../../apps/simulator/src/http.ts';
import { pump } from '../../apps/simulator/src/pump.ts';
import { createRng } from '../../apps/simulator/src/random.ts';
import { backfillRuns, realtimeRuns } from '../../apps/simulator/src/schedule.ts';
import { Tally } from '../../apps/simulator/src/summary.ts';
import type { Sender } from '../../apps/simulator/src/transport.ts';
import { sampleChecks } from './checks.ts';

const checks = sampleChecks('pump', 1);

/** Records what it is sent; answers after `delayMs`. */
function fakeSender(delayMs = 0, fail?: (call: number) => Error | null) {
  const batches: CheckResultInput[][] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const sender: Sender = {
    name: 'http',
    async send(results) {
      const call = batches.push(results);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      inFlight--;
      const error = fail?.(call);
      if (error) throw error;
      return { accepted: results.length, rejected: [] };
    },
    async close() {},
  };
  return { sender, batches, maxInFlight: () => maxInFlight };
}

function run(options: {
  sender: Sender;
  rate: number;
  durationMs: number;
  batchSize?: number;
  concurrency?: number;
  source?: ReturnType<typeof realtimeRuns>;
}) {
  const tally = new Tally();
  const outcome = pump({
    source: options.source ?? realtimeRuns(checks),
    generator: createResultGenerator(checks, 'pump'),
    sender: options.sender,
    tally,
    rate: options.rate,
    durationMs: options.durationMs,
    batchSize: options.batchSize ?? 1000,
    concurrency: options.concurrency ?? 4,
    flushMs: 100,
  });
  return outcome.then((result) => ({ ...result, tally }));
}

describe('the pump', () => {
  it('sends rate × duration results, in partial batches at a low rate', async () => {
    const fake = fakeSender();
    const { tally, elapsedMs, fatal } = await run({ sender: fake.sender, rate: 200, durationMs: 1000 });
    expect(fatal).toBeNull();
    expect(tally.generated).toBe(200);
    expect(tally.accepted).toBe(200);
    expect(fake.batches.length).toBeGreaterThanOrEqual(5);
    expect(elapsedMs).toBeGreaterThanOrEqual(1000);
    expect(elapsedMs).toBeLessThan(1500);
  });

  it('caps batches at the batch size and in-flight batches at the concurrency', async () => {
    const fake = fakeSender(50);
    const { tally } = await run({ sender: fake.sender, rate: 0, durationMs: 400, batchSize: 25, concurrency: 3 });
    expect(Math.max(...fake.batches.map((batch) => batch.length))).toBe(25);
    expect(fake.maxInFlight()).toBe(3);
    // As fast as possible: about three batches every 50 ms.
    expect(tally.accepted).toBeGreaterThan(25 * 3 * 4);
  });

  it('stops at the first error no retry can fix, and counts the failed results', async () => {
    const fake = fakeSender(0, (call) =>
      call === 2 ? new FatalRequestError('POST /v1/check-results answered 401: bad key') : null,
    );
    const { tally, fatal, elapsedMs } = await run({
      sender: fake.sender,
      rate: 0,
      durationMs: 5000,
      batchSize: 10,
      concurrency: 1,
    });
    expect(fatal).toMatch(/401/);
    expect(elapsedMs).toBeLessThan(1000);
    expect(tally.failed).toBe(10);
    expect(tally.accepted).toBe(10);
  });

  it('counts a batch that failed after its retries and goes on', async () => {
    const fake = fakeSender(0, (call) => (call === 1 ? new Error('POST /v1/check-results answered 503: busy') : null));
    const { tally, fatal } = await run({ sender: fake.sender, rate: 100, durationMs: 500 });
    expect(fatal).toBeNull();
    expect(tally.failed).toBeGreaterThan(0);
    expect(tally.failed + tally.accepted).toBe(50);
    expect([...tally.errors.keys()]).toEqual(['POST /v1/check-results answered 503: busy']);
  });

  it('ends a backfill when its history is sent', async () => {
    const source = backfillRuns(createRng('b'), checks, { days: 1, now: Date.UTC(2025, 0, 2) });
    const fake = fakeSender();
    const { tally } = await run({ sender: fake.sender, rate: 0, durationMs: Infinity, batchSize: 500, source });
    expect(tally.accepted).toBe(source.total);
  });
});

describe('the backfill schedule', () => {
  it('runs each check at its frequency from each location, oldest first, within the window', () => {
    const now = Date.UTC(2025, 0, 10, 12, 30);
    const source = backfillRuns(createRng('s'), checks, { days: 2, now });
    const runs = source.take(1_000_000, now);
    expect(runs.length).toBe(source.total);
    expect(source.take(10, now)).toEqual([]);
    const expected = checks.reduce((sum, check) => sum + check.locations.length * ((2 * 1440) / check.frequency), 0);
    expect(runs.length).toBe(expected);
    const minutes = runs.map((run) => Math.floor(run.startedAt / 60_000));
    expect(minutes).toEqual([...minutes].sort((a, b) => a - b));
    expect(Math.min(...minutes) * 60_000).toBeGreaterThanOrEqual(now - 2 * 86_400_000 - 60_000);
    expect(Math.max(...runs.map((run) => run.startedAt))).toBeLessThan(now);
    checks.forEach((check, index) => {
      const mine = runs
        .filter((run) => run.check === index && run.location === check.locations[0])
        .map((run) => Math.floor(run.startedAt / 60_000));
      const gaps = new Set(mine.slice(1).map((minute, i) => minute - mine[i]!));
      expect([...gaps]).toEqual([check.frequency]);
    });
  });
});
