import { sleep, type Logger } from '#core';
import type { AlertChannelView, ReadModels } from '#readmodels';
import type { Attempter, Subject } from './attempt.ts';
import { channelOrigin } from './channels/outgoing.ts';
import type { ChannelEndpoints } from './config.ts';
import type { KeySlots } from './lanes.ts';
import type { Delivery, DeliveryStore } from './store.ts';

export interface RetryLoopOptions {
  store: DeliveryStore;
  readModels: ReadModels;
  attempter: Attempter;
  /** Per-origin slots shared with the fresh lanes. */
  originSlots: KeySlots;
  endpoints: ChannelEndpoints;
  log: Logger;
  /** Retries in flight at once. */
  limit: number;
  /** Longest the loop sleeps when the queue is empty. */
  idleMs: number;
  /** How long a claim keeps other dispatchers off a retry. */
  leaseMs: number;
}

/**
 * What one claimed batch of retries reads once and shares: each channel, and each alert's
 * subject (its check and group, or its location, and the template variables), however many of
 * the batch's deliveries need them. A retry of an alert to two channels renders from one read.
 */
export class RetryBatch {
  private readonly channels = new Map<string, Promise<AlertChannelView | null>>();
  private readonly subjects = new Map<string, Promise<Subject>>();

  constructor(
    private readonly readModels: ReadModels,
    private readonly attempter: Attempter,
  ) {}

  channel(id: string): Promise<AlertChannelView | null> {
    let channel = this.channels.get(id);
    if (!channel) this.channels.set(id, (channel = this.readModels.alertChannel(id)));
    return channel;
  }

  subject(delivery: Delivery): Promise<Subject> {
    // The alert id names one alert event; a delivery's check id is the alert's, so the key holds both.
    const key = `${delivery.alert.alertId}\n${delivery.checkId}`;
    let subject = this.subjects.get(key);
    if (!subject) {
      subject = this.attempter.subjectOf(delivery).then((found): Subject => {
        if ('gone' in found) return found;
        // The variables are built once for the alert's deliveries in this batch.
        let variables: ReturnType<typeof found.variables> | undefined;
        return { variables: () => (variables ??= found.variables()) };
      });
      this.subjects.set(key, subject);
    }
    return subject;
  }
}

/**
 * The durable retry queue's loop: claims due retries as slots free up (at least half of them, so
 * claims stay batched), reads them and what they render in one batch, and attempts them; each
 * record joins the group commit. Retries take their per-origin slots from the same pool as fresh
 * attempts.
 */
export class RetryLoop {
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  /** Ends the current sleep. */
  private wakeSleep: () => void = () => undefined;
  /** When the sleep ends; Infinity while the loop is awake (so a wake is never lost). */
  private sleepingUntil = Infinity;
  /** The loop sleeps because its slots are taken: a finished retry wakes it. */
  private sleepingForSlots = false;
  /** A wake that came while the loop was not asleep: the loop looks again instead of sleeping. */
  private woken = false;
  /** Retries in flight; the loop claims more only as slots free up. */
  private readonly retrying = new Set<Promise<void>>();
  /** Records of retries whose response is in, waiting for their group commit; stop() waits for them. */
  private readonly retryRecords = new Set<Promise<void>>();

  constructor(private readonly options: RetryLoopOptions) {}

  start(): void {
    if (this.loop) return;
    this.abort = new AbortController();
    this.loop = this.run(this.abort.signal);
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.wakeSleep();
    await this.loop;
    this.loop = undefined;
  }

  /** A retry was scheduled for `at`: the loop looks again if it meant to sleep past it. */
  scheduled(at: number): void {
    if (at < this.sleepingUntil) this.wake();
  }

  private async run(signal: AbortSignal): Promise<void> {
    const { store, limit, idleMs } = this.options;
    const half = Math.ceil(limit / 2);
    while (!signal.aborted) {
      this.woken = false;
      try {
        const free = limit - this.retrying.size;
        if (free >= half) {
          const ids = await store.claimDue(Date.now(), this.options.leaseMs, free);
          if (ids.length > 0) {
            const deliveries = await store.getMany(ids);
            const batch = new RetryBatch(this.options.readModels, this.options.attempter);
            ids.forEach((id, i) => this.track(this.retry(id, deliveries[i] ?? null, batch)));
            continue;
          }
        }
        const due = free >= half ? await store.nextDue() : null;
        const wait = due === null ? idleMs : Math.min(idleMs, Math.max(5, due - Date.now()));
        if (this.woken || signal.aborted) continue;
        this.sleepingUntil = Date.now() + wait;
        this.sleepingForSlots = free < half;
        await this.sleep(wait);
        this.sleepingUntil = Infinity;
        this.sleepingForSlots = false;
      } catch (error) {
        this.options.log.error({ err: error }, 'retry loop failed; trying again');
        await sleep(idleMs, signal);
      }
    }
    await Promise.allSettled([...this.retrying]);
    await Promise.allSettled([...this.retryRecords]);
  }

  /**
   * Sleeps until `ms` pass or wakeSleep is called (a wake, or stop). A timer and a resolver, not
   * an aborted signal: with 2 of 10 receivers failing, every finished retry woke the loop, and
   * each abort built an AbortError (a DOMException with its stack), 0.7% of the main thread.
   */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakeSleep = () => undefined;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakeSleep = wake;
    });
  }

  /** Ends the loop's sleep, or its next one: a retry was scheduled, or slots came free. */
  private wake(): void {
    this.woken = true;
    this.wakeSleep();
  }

  private track(work: Promise<void>): void {
    const { limit, log } = this.options;
    const settled = work
      .catch((error: unknown) => log.error({ err: error }, 'retry attempt failed; the lease brings it back'))
      .finally(() => {
        this.retrying.delete(settled);
        const awake = this.sleepingUntil === Infinity;
        if ((awake || this.sleepingForSlots) && limit - this.retrying.size >= Math.ceil(limit / 2)) this.wake();
      });
    this.retrying.add(settled);
  }

  /**
   * A retry frees its slot once the response is in, as a fresh attempt does; its record joins
   * the group commit. Until that record lands the delivery's lease keeps it from being claimed
   * again, and a crash before it lands brings it back when the lease ends (same webhook-id).
   */
  private async retry(id: string, delivery: Delivery | null, batch: RetryBatch): Promise<void> {
    const { store, originSlots, endpoints, attempter, log } = this.options;
    if (!delivery || delivery.status !== 'pending') return store.dequeue(id);
    const records: Promise<void>[] = [];
    // The channel is read first so the retry can wait for a slot on its receiver's origin.
    const channel = await batch.channel(delivery.channelId);
    const origin = channel ? channelOrigin(channel.channel, endpoints) : null;
    if (origin !== null) await originSlots.take(origin);
    try {
      await attempter.attempt(
        delivery,
        { channel, subject: channel ? batch.subject(delivery) : undefined },
        true,
        records,
      );
    } finally {
      if (origin !== null) originSlots.release(origin);
    }
    for (const record of records) {
      const settled = record
        .catch((error: unknown) =>
          log.error({ err: error }, 'recording a retry attempt failed; the lease brings it back'),
        )
        .finally(() => this.retryRecords.delete(settled));
      this.retryRecords.add(settled);
    }
  }
}
