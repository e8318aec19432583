import { randomUUID } from 'node:crypto';
import { Gauge, type Registry } from 'prom-client';
import { ConflictError, sleep, type Logger } from '#core';
import type { EventStore, RecordedEvent } from '#eventstore';
import type { StateStore } from '#statestore';
import { BatchOverlay } from './overlay.ts';
import type { Projection } from './projection.ts';

export interface ProjectionRunnerOptions {
  /** Names the checkpoint and the lease; one runner per name is active at a time. */
  name: string;
  projections: Projection[];
  eventStore: EventStore;
  stateStore: StateStore;
  log: Logger;
  metrics?: Registry;
  /** Most events applied in one atomic write (default 500). */
  batchSize?: number;
  /** Longest a partial batch waits for more events before it is written (default 5 ms). */
  flushMs?: number;
  /**
   * Lease that keeps replicas from applying the same events at once (default 3 s). The holder
   * renews it every sixth of that, so a crashed holder blocks a successor for at most this long.
   */
  leaseTtlMs?: number;
  /** Called when the loop stops for good (its read models belong to another event store). */
  onFatal?: (error: Error) => void;
}

export const checkpointKey = (name: string) => `projection:${name}:checkpoint`;
/** The identity of the event store the checkpoint counts positions of; written with the checkpoint. */
export const checkpointStoreKey = (name: string) => `projection:${name}:store`;
export const leaseKey = (name: string) => `projection:${name}:lease`;

export async function readCheckpoint(stateStore: StateStore, name: string): Promise<bigint> {
  const raw = await stateStore.get(checkpointKey(name));
  return raw === null ? 0n : BigInt(raw);
}

/**
 * Catches read models up from the event store and keeps them live. Each batch of read-model
 * writes and the checkpoint go to the state store in one atomic write, so a crash never
 * applies an event twice nor skips one.
 */
export class ProjectionRunner {
  private readonly instanceId = randomUUID();
  private readonly batchSize: number;
  private readonly flushMs: number;
  private readonly leaseTtlMs: number;
  private readonly log: Logger;
  private position = 0n;
  private waiters: { position: bigint; resolve: () => void }[] = [];
  private abort = new AbortController();
  private loop: Promise<void> | undefined;
  private lagTimer: NodeJS.Timeout | undefined;
  private lagGauge: Gauge | undefined;
  private storeIdentity: string | undefined;
  private fatal: Error | undefined;

  constructor(private readonly options: ProjectionRunnerOptions) {
    this.batchSize = options.batchSize ?? 500;
    this.flushMs = options.flushMs ?? 5;
    this.leaseTtlMs = options.leaseTtlMs ?? 3_000;
    this.log = options.log.child({ component: 'projection-runner', projection: options.name });
    if (options.metrics) {
      this.lagGauge = new Gauge({
        name: 'vigil_projection_lag',
        help: 'Event-store positions between the head and the projection checkpoint',
        labelNames: ['projection'],
        registers: [options.metrics],
      });
    }
  }

  get checkpoint(): bigint {
    return this.position;
  }

  /** Why the runner stopped for good, if it did. */
  get failure(): Error | undefined {
    return this.fatal;
  }

  /**
   * Checks that the read models belong to this event store: the checkpoint must have been written
   * against this store's identity, and must not be past the store's head. Otherwise positions mean
   * other events (a new, replaced or restored store), and continuing would silently skip them.
   * Throws StoreMismatchError naming both identities and the rebuild command.
   */
  async verifyStore(): Promise<void> {
    const { stateStore, eventStore, name } = this.options;
    const [checkpoint, recorded, identity, head] = await Promise.all([
      readCheckpoint(stateStore, name),
      stateStore.get(checkpointStoreKey(name)),
      eventStore.identity(),
      eventStore.headPosition(),
    ]);
    this.storeIdentity = identity;
    if (checkpoint === 0n) return;
    if (recorded !== null && recorded !== identity) {
      throw new StoreMismatchError(
        `Read models of projection ${name} (checkpoint ${checkpoint}) were built from event store ${recorded}, ` +
          `but this event store is ${identity}. Refusing to continue, which would skip this store's first ` +
          `${checkpoint} positions. Rebuild them from this store: stop every projector, then run ${rebuildCommand}.`,
        { projection: name, checkpoint: checkpoint.toString(), checkpointStore: recorded, eventStore: identity },
      );
    }
    if (head < checkpoint) {
      throw new StoreMismatchError(
        `Read models of projection ${name} are at position ${checkpoint}, past the head (${head}) of event store ` +
          `${identity}${recorded === null ? ' (their checkpoint names no store)' : ''}: the store was replaced ` +
          `or restored from an older backup. Refusing to continue. Rebuild them from this store: stop every ` +
          `projector, then run ${rebuildCommand}.`,
        {
          projection: name,
          checkpoint: checkpoint.toString(),
          head: head.toString(),
          checkpointStore: recorded,
          eventStore: identity,
        },
      );
    }
    if (recorded === null)
      this.log.warn({ eventStore: identity }, 'checkpoint names no event store; adopting this one');
  }

  start(): void {
    if (this.loop) return;
    this.abort = new AbortController();
    this.loop = this.run(this.abort.signal).catch((error) => this.log.error({ err: error }, 'projection loop failed'));
    if (this.lagGauge) {
      this.lagTimer = setInterval(() => void this.reportLag(), 1000);
      this.lagTimer.unref();
    }
  }

  async stop(): Promise<void> {
    this.abort.abort();
    clearInterval(this.lagTimer);
    await this.loop;
    this.loop = undefined;
    await this.releaseLease();
  }

  private async releaseLease(): Promise<void> {
    if ((await this.options.stateStore.get(leaseKey(this.options.name)).catch(() => null)) === this.instanceId) {
      await this.options.stateStore.del(leaseKey(this.options.name)).catch(() => undefined);
    }
  }

  /** Resolves true once the read models include the event at position, false after timeoutMs. */
  async waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    if (this.position >= position) return true;
    return new Promise<boolean>((resolve) => {
      const waiter = { position, resolve: () => resolve(true) };
      this.waiters.push(waiter);
      setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs).unref();
    });
  }

  private async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        if (!(await this.acquireLease())) {
          await sleep(this.leaseTtlMs / 6, signal);
          continue;
        }
        try {
          await this.verifyStore();
        } catch (error) {
          if (!(error instanceof StoreMismatchError)) throw error;
          this.fatal = error;
          this.log.error(
            { err: error, ...error.details },
            'projection stopped: read models belong to another event store',
          );
          await this.releaseLease();
          this.options.onFatal?.(error);
          return;
        }
        this.position = await readCheckpoint(this.options.stateStore, this.options.name);
        this.notify();
        this.log.info({ fromPosition: this.position.toString() }, 'projection catching up');
        await this.consume(signal);
      } catch (error) {
        if (signal.aborted) return;
        this.log.error({ err: error }, 'projection failed; restarting from the checkpoint');
        await sleep(1000, signal);
      }
    }
  }

  private async consume(outer: AbortSignal): Promise<void> {
    const inner = new AbortController();
    const stopInner = () => inner.abort();
    outer.addEventListener('abort', stopInner, { once: true });
    // Stopped while the lease and checkpoint were being read: an aborted signal fires no listener.
    if (outer.aborted) inner.abort();
    const renew = setInterval(() => {
      void this.renewLease().then((held) => {
        if (!held) {
          this.log.warn('projection lease lost; standing by');
          inner.abort();
        }
      });
    }, this.leaseTtlMs / 6);
    const events = this.options.eventStore
      .subscribeToAll({ fromPosition: this.position, signal: inner.signal })
      [Symbol.asyncIterator]();
    try {
      let overlay = new BatchOverlay(this.options.stateStore);
      let last = this.position;
      let pending = events.next();
      while (!inner.signal.aborted) {
        const next =
          overlay.ops.length === 0 && last === this.position ? await pending : await raceTimeout(pending, this.flushMs);
        if (next === 'timeout' || next.done) {
          if (last > this.position) await this.commit(overlay, last);
          overlay = new BatchOverlay(this.options.stateStore);
          if (next === 'timeout') continue;
          return;
        }
        pending = events.next();
        const event = next.value;
        if (event.position <= last) continue; // a redelivery: already applied
        for (const projection of this.options.projections) overlay.add(await projection.apply(event, overlay));
        last = event.position;
        if (overlay.ops.length >= this.batchSize * 4 || countSince(last, this.position) >= this.batchSize) {
          await this.commit(overlay, last);
          overlay = new BatchOverlay(this.options.stateStore);
        }
      }
    } finally {
      clearInterval(renew);
      outer.removeEventListener('abort', stopInner);
      inner.abort();
      await events.return?.();
    }
  }

  private async commit(overlay: BatchOverlay, position: bigint): Promise<void> {
    const identity = this.storeIdentity ?? (this.storeIdentity = await this.options.eventStore.identity());
    await this.options.stateStore.write([
      ...overlay.ops,
      { op: 'set', key: checkpointKey(this.options.name), value: position.toString() },
      { op: 'set', key: checkpointStoreKey(this.options.name), value: identity },
    ]);
    this.position = position;
    this.notify();
  }

  private notify(): void {
    const ready = this.waiters.filter((w) => w.position <= this.position);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.position > this.position);
    for (const waiter of ready) waiter.resolve();
  }

  private async acquireLease(): Promise<boolean> {
    const store = this.options.stateStore;
    if (await store.setIfAbsent(leaseKey(this.options.name), this.instanceId, { ttlMs: this.leaseTtlMs })) return true;
    return (await store.get(leaseKey(this.options.name))) === this.instanceId;
  }

  private async renewLease(): Promise<boolean> {
    try {
      const store = this.options.stateStore;
      const key = leaseKey(this.options.name);
      const holder = await store.get(key);
      // Expired under us (a stalled event loop): only take it back if nobody else did meanwhile.
      if (holder === null) return store.setIfAbsent(key, this.instanceId, { ttlMs: this.leaseTtlMs });
      if (holder !== this.instanceId) return false;
      await store.set(key, this.instanceId, { ttlMs: this.leaseTtlMs });
      return true;
    } catch (error) {
      this.log.warn({ err: error }, 'lease renewal failed');
      return true; // keep going; the next write will fail loudly if the store is really gone
    }
  }

  private async reportLag(): Promise<void> {
    try {
      const head = await this.options.eventStore.headPosition();
      this.lagGauge?.set({ projection: this.options.name }, Number(head - this.position));
    } catch {
      // The next tick tries again; lag is informational.
    }
  }
}

export const rebuildCommand = 'npm run projections:rebuild';

/** The read models' checkpoint counts positions of another event store (or of a longer history). */
export class StoreMismatchError extends ConflictError {
  override readonly code = 'EVENT_STORE_MISMATCH';
  constructor(message: string, details: Record<string, string | null>) {
    super(message, { details });
  }
}

/** Positions are dense on SQLite; elsewhere this over-counts, which only makes batches smaller. */
function countSince(last: bigint, committed: bigint): number {
  return Number(last - committed);
}

async function raceTimeout<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export type { RecordedEvent };
