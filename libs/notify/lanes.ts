/**
 * Slots per key (a receiver's origin), shared by every user of one dispatcher: the fresh lanes
 * and the retry loop both take from it, so together they never send more than `perKey` at once
 * to one receiver.
 */
export class KeySlots {
  private readonly active = new Map<string, number>();
  /**
   * take() callers waiting for a key's slot, first come first served. A released slot passes
   * straight to the first of them: every release used to call every waiter to try its key
   * (retries waiting on one receiver made each release cost as many tries as there were waiters).
   */
  private readonly waiting = new Map<string, (() => void)[]>();
  private readonly listeners = new Set<() => void>();

  constructor(readonly perKey: number) {
    this.perKey = Math.max(1, perKey);
  }

  /** Whether `key` has a free slot (taken only by tryTake). */
  free(key: string): boolean {
    return (this.active.get(key) ?? 0) < this.perKey;
  }

  /** Takes a slot for `key` if one is free. */
  tryTake(key: string): boolean {
    const held = this.active.get(key) ?? 0;
    if (held >= this.perKey) return false;
    this.active.set(key, held + 1);
    return true;
  }

  /**
   * Waits for a slot for `key` and takes it. A waiter gets a released slot before the lanes'
   * listeners see it: what waits here is a retry, older work than any fresh attempt.
   */
  take(key: string): Promise<void> {
    if (this.tryTake(key)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const queue = this.waiting.get(key);
      if (queue === undefined) this.waiting.set(key, [resolve]);
      else queue.push(resolve);
    });
  }

  release(key: string): void {
    const queue = this.waiting.get(key);
    if (queue !== undefined) {
      // The slot passes to the first waiter: the key's count stays as it is.
      const next = queue.shift()!;
      if (queue.length === 0) this.waiting.delete(key);
      next();
      return;
    }
    const held = (this.active.get(key) ?? 1) - 1;
    if (held <= 0) this.active.delete(key);
    else this.active.set(key, held);
    // The lanes waiting may now find a slot; each takes one only if it is still free.
    for (const listener of [...this.listeners]) listener();
  }

  /** Called after each release that frees a slot, until the returned function is called. */
  onRelease(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Slots held for `key` (for tests). */
  held(key: string): number {
    return this.active.get(key) ?? 0;
  }
}

/**
 * Runs work over items with at most `limit` in flight in all, and at most `perKey` in flight for
 * items of one key (a receiver's origin), taking keys in turn. A slow or hanging receiver then
 * holds at most `perKey` slots, and the others keep flowing past it. `slots`, when given, holds
 * the per-key counts (shared with other users, such as the retry loop) and sets `perKey`.
 * `total`, when given, is a limit shared with other calls (its one key, TOTAL): calls that run
 * at once (pipelined alert batches) then keep to `total.perKey` in flight together.
 * Resolves when every item is done; rejects with the first error once the items already started
 * have settled.
 */
export function eachInLanes<T>(
  items: readonly T[],
  options: { limit: number; perKey: number; key: (item: T) => string; slots?: KeySlots; total?: KeySlots },
  work: (item: T) => Promise<void>,
): Promise<void> {
  const limit = Math.max(1, options.limit);
  const slots = options.slots ?? new KeySlots(Math.min(options.perKey, limit));
  const total = options.total;
  const lanes = new Map<string, { key: string; queue: T[]; next: number }>();
  for (const item of items) {
    const key = options.key(item);
    let lane = lanes.get(key);
    if (!lane) lanes.set(key, (lane = { key, queue: [], next: 0 }));
    lane.queue.push(item);
  }
  const order = [...lanes.values()];
  let cursor = 0;
  let running = 0;
  let left = items.length;
  let failure: { error: unknown } | undefined;
  let stopListening: () => void = () => undefined;
  let stopTotal: () => void = () => undefined;

  return new Promise<void>((resolve, reject) => {
    const settle = () => {
      if (failure && running === 0) {
        stopListening();
        stopTotal();
        reject(failure.error);
      } else if (!failure && left === 0) {
        stopListening();
        stopTotal();
        resolve();
      }
    };
    const done = (key: string) => {
      running--;
      // The shared total first, so the per-key release's listeners find both slots free.
      total?.release(TOTAL);
      slots.release(key);
    };
    const pump = () => {
      while (!failure && running < limit) {
        // The next lane, in turn, with work waiting and a free slot.
        let picked: (typeof order)[number] | undefined;
        let at = 0;
        for (let i = 0; i < order.length; i++) {
          const lane = order[(cursor + i) % order.length]!;
          if (lane.next < lane.queue.length && slots.free(lane.key)) {
            picked = lane;
            at = i;
            break;
          }
        }
        if (!picked) return;
        // Taken only when a lane can go: a total slot taken and given back would wake every listener.
        if (total && !total.tryTake(TOTAL)) return;
        slots.tryTake(picked.key);
        cursor = (cursor + at + 1) % order.length;
        const lane = picked;
        const item = lane.queue[lane.next++]!;
        running++;
        work(item).then(
          () => {
            left--;
            done(lane.key);
            pump();
            settle();
          },
          (error: unknown) => {
            failure ??= { error };
            done(lane.key);
            settle();
          },
        );
      }
    };
    // A slot freed by another user of the shared slots (a retry) lets a waiting lane go on.
    if (items.length > 0) stopListening = slots.onRelease(pump);
    if (items.length > 0 && total) stopTotal = total.onRelease(pump);
    pump();
    settle();
  });
}

/** The one key of a `total` limit. */
export const TOTAL = '*';

/** A receiver's origin (scheme, host and port): the unit the per-receiver limit counts. */
export function originOf(url: string): string {
  let origin = origins.get(url);
  if (origin === undefined) {
    try {
      origin = new URL(url).origin;
    } catch {
      origin = url;
    }
    // Channel URLs (templates included) are few; the bound only guards against a flood of them.
    if (origins.size >= 2_000) origins.clear();
    origins.set(url, origin);
  }
  return origin;
}

/** Origins by URL: every delivery of every alert asks for its channel's. */
const origins = new Map<string, string>();
