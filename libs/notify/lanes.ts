/**
 * Runs work over items with at most `limit` in flight in all, and at most `perKey` in flight for
 * items of one key (a receiver's origin), taking keys in turn. A slow or hanging receiver then
 * holds at most `perKey` slots, and the others keep flowing past it. Resolves when every item
 * is done; rejects with the first error once the items already started have settled.
 */
export function eachInLanes<T>(
  items: readonly T[],
  options: { limit: number; perKey: number; key: (item: T) => string },
  work: (item: T) => Promise<void>,
): Promise<void> {
  const limit = Math.max(1, options.limit);
  const perKey = Math.max(1, Math.min(options.perKey, limit));
  const lanes = new Map<string, { queue: T[]; next: number; active: number }>();
  for (const item of items) {
    const key = options.key(item);
    let lane = lanes.get(key);
    if (!lane) lanes.set(key, (lane = { queue: [], next: 0, active: 0 }));
    lane.queue.push(item);
  }
  const order = [...lanes.values()];
  let cursor = 0;
  let running = 0;
  let left = items.length;
  let failure: { error: unknown } | undefined;

  return new Promise<void>((resolve, reject) => {
    const settle = () => {
      if (failure && running === 0) reject(failure.error);
      else if (!failure && left === 0) resolve();
    };
    const pump = () => {
      while (!failure && running < limit) {
        // The next lane, in turn, with work waiting and a free slot.
        let picked: (typeof order)[number] | undefined;
        for (let i = 0; i < order.length; i++) {
          const lane = order[(cursor + i) % order.length]!;
          if (lane.next < lane.queue.length && lane.active < perKey) {
            picked = lane;
            cursor = (cursor + i + 1) % order.length;
            break;
          }
        }
        if (!picked) return;
        const lane = picked;
        const item = lane.queue[lane.next++]!;
        lane.active++;
        running++;
        work(item).then(
          () => {
            lane.active--;
            running--;
            left--;
            pump();
            settle();
          },
          (error: unknown) => {
            lane.active--;
            running--;
            failure ??= { error };
            settle();
          },
        );
      }
    };
    pump();
    settle();
  });
}

/** A receiver's origin (scheme, host and port): the unit the per-receiver limit counts. */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
