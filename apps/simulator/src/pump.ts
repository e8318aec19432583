import type { ResultGenerator } from './generate.ts';
import { FatalRequestError } from './http.ts';
import type { RunSource } from './schedule.ts';
import type { Tally } from './summary.ts';
import type { Sender } from './transport.ts';

/**
 * Paces the results: by time t, rate × t results are due. Due results go out in batches of
 * batchSize as soon as a batch is full, and a partial batch at least every flushMs so a low rate
 * still looks live. At most `concurrency` batches are in flight; when the receiver is slower than
 * the rate, due results wait for a free slot, so the achieved rate shows the receiver's limit
 * rather than a pile of timeouts.
 */
export interface PumpOptions {
  source: RunSource;
  generator: ResultGenerator;
  sender: Sender;
  tally: Tally;
  /** Results per second; 0 sends as fast as the receiver takes them. */
  rate: number;
  /** Stop producing after this long; Infinity runs until the source is used up. */
  durationMs: number;
  batchSize: number;
  concurrency: number;
  flushMs?: number;
  /** Stops producing; batches in flight still finish, since they may already be stored. */
  signal?: AbortSignal;
  now?: () => number;
}

export interface PumpOutcome {
  elapsedMs: number;
  /** Why the run stopped early: a request that no retry could fix (a bad key, say). */
  fatal: string | null;
}

/** Runs until the duration ends, the source is used up, the signal aborts or a fatal error. */
export async function pump(options: PumpOptions): Promise<PumpOutcome> {
  const { source, generator, sender, tally, rate, batchSize, concurrency } = options;
  const now = options.now ?? Date.now;
  const flushMs = options.flushMs ?? 500;
  const start = now();
  const deadline = start + options.durationMs;
  const inflight = new Set<Promise<void>>();
  let produced = 0;
  let lastSend = start;
  let fatal: string | null = null;

  const deliver = async (runs: ReturnType<RunSource['take']>) => {
    const results = runs.map((run) => generator.next(run));
    tally.countGenerated(results);
    const began = now();
    try {
      tally.countDelivered(await sender.send(results), Math.round(now() - began));
    } catch (error) {
      tally.countFailed(results.length, error);
      if (error instanceof FatalRequestError) fatal ??= error.message;
    }
  };

  for (;;) {
    if (fatal !== null || options.signal?.aborted) break;
    const clock = now();
    const last = clock >= deadline;
    const t = Math.min(clock, deadline);
    // At the deadline, what fell due since the last flush still goes out, so a run sends rate × duration.
    const due = rate > 0 ? Math.floor((rate * (t - start)) / 1000) - produced : last ? 0 : Infinity;
    if (due > 0 && (due >= batchSize || t - lastSend >= flushMs || last)) {
      if (inflight.size >= concurrency) {
        await Promise.race(inflight);
        continue;
      }
      const runs = source.take(Math.min(due, batchSize), t);
      if (runs.length === 0) break;
      produced += runs.length;
      lastSend = t;
      const task: Promise<void> = deliver(runs).finally(() => inflight.delete(task));
      inflight.add(task);
      continue;
    }
    if (last) break;
    // Sleep until a batch is full, or until something is due and the flush interval has passed.
    const at = (count: number) => start + (count * 1000) / rate - clock;
    const untilFull = at(produced + batchSize);
    const untilFlush = Math.max(at(produced + 1), lastSend + flushMs - clock);
    await sleep(Math.max(1, Math.min(untilFull, untilFlush, deadline - clock)), options.signal);
  }
  await Promise.all(inflight);
  return { elapsedMs: now() - start, fatal };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
