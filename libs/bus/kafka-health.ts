import { UnavailableError, type Logger } from '#core';

/**
 * Resolves with work, or rejects with UnavailableError once the producer has made no progress
 * (no acknowledgement) for timeoutMs since the later of the call and its last acknowledgement.
 * Progress rather than a fixed budget: a publish queued behind others that are being acknowledged
 * is slow, not stuck, and must not fail on a busy machine; a broker that answers nothing is stuck.
 */
export function untilAcknowledged<T>(work: Promise<T>, lastAckAt: () => number, timeoutMs: number): Promise<T> {
  const started = Date.now();
  let settled = false;
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const check = () => {
      if (settled) return;
      const since = Math.max(started, lastAckAt());
      const left = since + timeoutMs - Date.now();
      if (left > 0) {
        timer = setTimeout(expire, left);
        return;
      }
      settled = true;
      reject(new UnavailableError(`Kafka acknowledged nothing within ${timeoutMs} ms`));
    };
    // After a stalled event loop, timers run before pending socket reads: decide only after the
    // poll phase (setImmediate), so an acknowledgement already received is not mistaken for silence.
    const expire = () => setImmediate(check);
    timer = setTimeout(expire, timeoutMs);
    work.then(
      (value) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (settled) return;
        settled = true;
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * Whether the cluster is known to be unreachable. After a publish found Kafka unavailable, later
 * publishes and pings fail at once (an ingest request answers 503 at once instead of each one
 * waiting out its deadline) while one probe at a time checks the cluster; the first probe that
 * succeeds ends the outage, so the process recovers by itself, without a restart.
 */
export class KafkaOutage {
  private down: { since: number; reason: string } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly probe: () => Promise<void>,
    private readonly log: Logger,
    private readonly intervalMs = 500,
  ) {}

  /** Throws UnavailableError while an outage is known. */
  check(): void {
    if (!this.down) return;
    const since = new Date(this.down.since).toISOString();
    throw new UnavailableError(`Kafka is unavailable (since ${since}): ${this.down.reason}`);
  }

  get isDown(): boolean {
    return this.down !== undefined;
  }

  report(reason: string): void {
    if (this.stopped || this.down) return;
    this.down = { since: Date.now(), reason };
    this.log.warn({ reason }, 'Kafka unavailable; publishes fail fast until a probe succeeds');
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tryProbe(), this.intervalMs);
    this.timer.unref();
  }

  private async tryProbe(): Promise<void> {
    if (this.stopped || !this.down) return;
    try {
      await this.probe();
      const downForMs = Date.now() - this.down.since;
      this.down = undefined;
      this.log.info({ downForMs }, 'Kafka reachable again');
    } catch (error) {
      if (this.down) this.down.reason = error instanceof Error ? error.message : String(error);
      this.schedule();
    }
  }
}
