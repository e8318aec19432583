import { randomUUID } from 'node:crypto';
import { NotFoundError, RateLimitedError } from '#core';
import { classifyPing, type CheckResult, type HeartbeatStatus } from '#domain';
import type { ResultSink } from '#pipeline';
import type { ReadModels } from '#readmodels';
import type { StateStore } from '#statestore';

/** Where the time of a check's last ping is kept; the runner reads it to find missed periods. */
export const lastPingKey = (checkId: string) => `heartbeat:last:${checkId}`;

export interface PingOutcome {
  checkId: string;
  status: HeartbeatStatus;
  resultId: string;
}

export interface HeartbeatOptions {
  readModels: ReadModels;
  stateStore: StateStore;
  sink: ResultSink;
  location: string;
  /** Pings per token per minute, per process. */
  perTokenPerMinute: number;
  /** How long pings wait to be written together. */
  batchDelayMs?: number;
}

/**
 * Pings from users' cron jobs. Every job of every user hits this, so it stays cheap: one
 * token look-up, and results written in small batches, each ping answered once its batch is
 * durable.
 */
export class HeartbeatService {
  private readonly counts = new Map<string, number>();
  private window = 0;
  private pending: { result: CheckResult; done: (error?: unknown) => void }[] = [];
  private writing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly options: HeartbeatOptions) {}

  async ping(token: string, failed: boolean, now: Date): Promise<PingOutcome> {
    this.limit(token, now.getTime());
    const view = await this.options.readModels.checkByPingToken(token);
    const check = view?.check;
    // A deactivated check ignores its pings, as it ignores its schedule.
    if (!view || check?.checkType !== 'HEARTBEAT' || !check.heartbeat || !check.activated) {
      throw new NotFoundError('Unknown ping token');
    }
    const lastRaw = await this.options.stateStore.get(lastPingKey(check.id));
    const last = lastRaw === null ? null : Date.parse(lastRaw);
    const status = classifyPing(now.getTime(), Number.isFinite(last) ? last : null, check.heartbeat);
    const result: CheckResult = {
      id: randomUUID(),
      accountId: view.accountId,
      checkId: check.id,
      checkType: 'HEARTBEAT',
      startedAt: now.toISOString(),
      // A heartbeat has one stream of pings, watched from its first location (as the runner does).
      runLocation: check.locations[0] ?? this.options.location,
      hasFailures: failed,
      isDegraded: !failed && status === 'GRACE',
      responseTime: 0,
      attempts: 1,
      heartbeat: { status: failed ? 'FAILING' : status },
      ...(failed ? { errorMessage: 'The job reported a failure (/fail)' } : {}),
    };
    // The result and the last-ping time are written with the rest of the batch: one result insert
    // and one state-store transaction for every ping of the last few milliseconds.
    await this.enqueue(result);
    return { checkId: check.id, status: result.heartbeat!.status, resultId: result.id };
  }

  /** Writes what is still queued; for shutdown. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.write();
  }

  private limit(token: string, nowMs: number): void {
    const window = Math.floor(nowMs / 60_000);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const count = (this.counts.get(token) ?? 0) + 1;
    this.counts.set(token, count);
    if (count > this.options.perTokenPerMinute) {
      const retryAfter = Math.ceil(((window + 1) * 60_000 - nowMs) / 1000);
      throw new RateLimitedError(`At most ${this.options.perTokenPerMinute} pings per minute per ping URL`, retryAfter);
    }
  }

  private enqueue(result: CheckResult): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ result, done: (error) => (error ? reject(error) : resolve()) });
      if (this.pending.length >= 1000) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), this.options.batchDelayMs ?? 5);
    });
  }

  /** One batch at a time; pings that arrive meanwhile form the next one. */
  private write(): Promise<void> {
    this.writing = this.writing.then(() => this.writeBatch());
    return this.writing;
  }

  private async writeBatch(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    try {
      const results = batch.map((entry) => entry.result);
      await this.options.sink.accept(results);
      const last = new Map(results.map((result) => [lastPingKey(result.checkId), result.startedAt]));
      await this.options.stateStore.write([...last].map(([key, value]) => ({ op: 'set' as const, key, value })));
      for (const entry of batch) entry.done();
    } catch (error) {
      for (const entry of batch) entry.done(error);
    }
  }
}
