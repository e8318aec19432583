import { randomUUID } from 'node:crypto';
import { NotFoundError, RateLimitedError } from '#core';
import { classifyPing, type CheckResult, type HeartbeatDefinition, type HeartbeatStatus } from '#domain';
import type { ResultSink } from '#pipeline';
import type { CheckView, ReadModels } from '#readmodels';
import type { StateStore } from '#statestore';

/** Where the time of a check's last ping is kept; the runner reads it to find missed periods. */
export const lastPingKey = (checkId: string) => `heartbeat:last:${checkId}`;

/** The ping's log: the first 10 KiB of its body, as healthchecks.io keeps. */
export const MAX_PING_LOG_BYTES = 10 * 1024;

export interface PingOutcome {
  checkId: string;
  status: HeartbeatStatus;
  resultId: string;
}

export interface HeartbeatOptions {
  readModels: ReadModels;
  stateStore: StateStore;
  /** The durable step: a ping is answered only once this resolved for its batch. */
  sink: ResultSink;
  location: string;
  /** Pings per token per minute, per process. */
  perTokenPerMinute: number;
  /**
   * Batches being written at once (default 8: two per Kafka producer, so one batch's Redis read
   * and last-ping write overlap another's send; with 4, open-loop runs showed every slot busy and
   * pings queued while each producer sat idle through its batch's Redis round trips).
   */
  concurrentBatches?: number;
  /** Most pings per batch (default 1000). */
  maxBatch?: number;
}

const MAX_CACHED_TOKENS = 100_000;

interface Pinged {
  view: CheckView;
  heartbeat: HeartbeatDefinition;
}

interface Waiting {
  token: string;
  failed: boolean;
  at: number;
  log: string | undefined;
  resolve: (outcome: PingOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * Pings from users' cron jobs. Every job of every user hits this, so a ping costs no round trip
 * of its own: pings are group-committed. A batch starts as soon as a slot is free (up to
 * `concurrentBatches` at once) and carries every ping that arrived meanwhile, so batches grow
 * with load instead of pings queueing behind a fixed delay. Per batch: one
 * state-store round trip for the checks' documents and last-ping times, one durable append of the
 * results, one state-store write of the new last-ping times; then every ping of the batch is answered.
 *
 * The documents are read when the batch starts, after the requests arrived, so a token rotated or a
 * check deactivated before a ping was sent answers 404, whichever process made the change: only the
 * token → check id mapping is kept in memory, and it cannot change.
 * A token is in at most one batch in flight, so pings of one check are classified in order, each
 * against the one before it (also within a batch), and reach the bus in order.
 */
export class HeartbeatService {
  private readonly counts = new Map<string, number>();
  private window = 0;
  private queue: Waiting[] = [];
  /** Tokens of the batches in flight. */
  private readonly busy = new Set<string>();
  private inFlight = 0;
  private scheduled = false;
  private idle: (() => void)[] = [];
  /** Token → check id of tokens seen; see checkIds. */
  private readonly tokens = new Map<string, string>();

  constructor(private readonly options: HeartbeatOptions) {}

  /** `log` is what the job sent (at most MAX_PING_LOG_BYTES of it), kept with the ping's result. */
  ping(token: string, failed: boolean, now: Date, log?: string): Promise<PingOutcome> {
    this.limit(token, now.getTime());
    return new Promise((resolve, reject) => {
      this.queue.push({ token, failed, at: now.getTime(), log: log || undefined, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once every ping taken so far is written (and answered); for shutdown. */
  flush(): Promise<void> {
    if (this.queue.length === 0 && this.inFlight === 0) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.idle.push(resolve));
    this.launch();
    return done;
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

  /** After the current turn of the event loop, so the requests already read join one batch. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.launch();
    });
  }

  private launch(): void {
    const slots = this.options.concurrentBatches ?? 8;
    const maxBatch = this.options.maxBatch ?? 1000;
    while (this.inFlight < slots && this.queue.length > 0) {
      const batch: Waiting[] = [];
      const rest: Waiting[] = [];
      // A token already in flight waits for that batch: its last-ping time is not written yet.
      for (const waiting of this.queue) {
        if (batch.length < maxBatch && !this.busy.has(waiting.token)) batch.push(waiting);
        else rest.push(waiting);
      }
      if (batch.length === 0) break;
      this.queue = rest;
      const tokens = new Set(batch.map((waiting) => waiting.token));
      for (const token of tokens) this.busy.add(token);
      this.inFlight += 1;
      void this.write(batch).finally(() => {
        this.inFlight -= 1;
        for (const token of tokens) this.busy.delete(token);
        if (this.queue.length > 0) this.launch();
        else if (this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
      });
    }
  }

  private async write(batch: Waiting[]): Promise<void> {
    const accepted: { waiting: Waiting; result: CheckResult }[] = [];
    try {
      const tokens = [...new Set(batch.map((waiting) => waiting.token))];
      const ids = await this.checkIds(tokens);
      const checkIds = [...new Set(ids.filter((id): id is string => id !== null))];
      // One round trip on Redis: the two reads are pipelined on one connection.
      const [views, lastRaw] = await Promise.all([
        this.options.readModels.checksByIds(checkIds),
        this.options.stateStore.getMany(checkIds.map(lastPingKey)),
      ]);
      const byId = new Map(views.map((view) => [view.check.id, view]));
      const checks = new Map<string, Pinged>();
      tokens.forEach((token, i) => {
        const view = byId.get(ids[i]!);
        const check = view?.check;
        // The check's own document decides: the token must still be its current one (a rotation
        // answers 404 at once), and a deactivated check ignores its pings, as it ignores its schedule.
        if (view && check?.checkType === 'HEARTBEAT' && check.heartbeat?.pingToken === token && check.activated)
          checks.set(token, { view, heartbeat: check.heartbeat });
        else this.tokens.delete(token);
      });
      const last = new Map<string, number | null>();
      checkIds.forEach((id, i) => {
        const parsed = lastRaw[i] === null ? NaN : Date.parse(lastRaw[i]!);
        last.set(id, Number.isFinite(parsed) ? parsed : null);
      });
      for (const waiting of batch) {
        const pinged = checks.get(waiting.token);
        if (!pinged) {
          waiting.reject(new NotFoundError('Unknown ping token'));
          continue;
        }
        // In arrival order, each ping against the one before it, even within this batch.
        const id = pinged.view.check.id;
        const result = this.result(pinged, waiting, last.get(id) ?? null);
        last.set(id, waiting.at);
        accepted.push({ waiting, result });
      }
      if (accepted.length === 0) return;
      await this.options.sink.accept(accepted.map((entry) => entry.result));
      const times = new Map(accepted.map(({ result }) => [lastPingKey(result.checkId), result.startedAt]));
      await this.options.stateStore.write([...times].map(([key, value]) => ({ op: 'set' as const, key, value })));
      for (const { waiting, result } of accepted)
        waiting.resolve({ checkId: result.checkId, status: result.heartbeat!.status, resultId: result.id });
    } catch (error) {
      // Pings already answered 404 are settled; rejecting them again does nothing.
      for (const waiting of batch) waiting.reject(error);
    }
  }

  /**
   * Token → check id, from memory when seen before. A token names one check for good (tokens are
   * random and never reused; a rotation only retires one), so the mapping cannot go stale in a way
   * that matters: whether the token still works is read from the check's document every time.
   */
  private async checkIds(tokens: string[]): Promise<(string | null)[]> {
    const missing = tokens.filter((token) => !this.tokens.has(token));
    if (missing.length > 0) {
      const found = await this.options.readModels.checkIdsByPingTokens(missing);
      if (this.tokens.size + missing.length > MAX_CACHED_TOKENS) this.tokens.clear();
      missing.forEach((token, i) => {
        if (found[i] !== null) this.tokens.set(token, found[i]!);
      });
    }
    return tokens.map((token) => this.tokens.get(token) ?? null);
  }

  private result({ view, heartbeat }: Pinged, waiting: Waiting, lastMs: number | null): CheckResult {
    const { check } = view;
    const status = classifyPing(waiting.at, lastMs, heartbeat);
    const failed = waiting.failed;
    return {
      id: randomUUID(),
      accountId: view.accountId,
      checkId: check.id,
      checkType: 'HEARTBEAT',
      startedAt: new Date(waiting.at).toISOString(),
      // A heartbeat has one stream of pings, watched from its first location (as the runner does).
      runLocation: check.locations[0] ?? this.options.location,
      hasFailures: failed,
      isDegraded: !failed && status === 'GRACE',
      responseTime: 0,
      attempts: 1,
      heartbeat: { status: failed ? 'FAILING' : status },
      ...(failed ? { errorMessage: 'The job reported a failure (/fail)' } : {}),
      // Stored with the result (analytics, the script-details column); GET /v1/check-results/{checkId}/{id} shows it.
      ...(waiting.log ? { logs: waiting.log } : {}),
    };
  }
}
