import { describe, expect, it } from 'vitest';
import { eachInLanes, KeySlots, originOf, TOTAL } from './lanes.ts';

/** Work that records how many run at once, overall and per key, and settles when told. */
function recorder() {
  const active = new Map<string, number>();
  let overall = 0;
  const peaks = { overall: 0, perKey: new Map<string, number>() };
  const done: string[] = [];
  const work = async (item: { key: string; id: string; fail?: boolean }) => {
    overall++;
    active.set(item.key, (active.get(item.key) ?? 0) + 1);
    peaks.overall = Math.max(peaks.overall, overall);
    peaks.perKey.set(item.key, Math.max(peaks.perKey.get(item.key) ?? 0, active.get(item.key)!));
    await new Promise((resolve) => setTimeout(resolve, item.key === 'slow' ? 5 : 1));
    overall--;
    active.set(item.key, active.get(item.key)! - 1);
    if (item.fail) throw new Error(`failed ${item.id}`);
    done.push(item.id);
  };
  return { work, peaks, done };
}

const items = (key: string, n: number) => Array.from({ length: n }, (_, i) => ({ key, id: `${key}-${i}` }));

describe('eachInLanes', () => {
  it('runs every item once, within the overall and the per-key limit', async () => {
    const { work, peaks, done } = recorder();
    const all = [...items('slow', 40), ...items('a', 30), ...items('b', 30)];
    await eachInLanes(all, { limit: 8, perKey: 3, key: (item) => item.key }, work);
    expect(done.sort()).toEqual(all.map((item) => item.id).sort());
    expect(peaks.overall).toBeLessThanOrEqual(8);
    expect(peaks.overall).toBeGreaterThan(3);
    for (const peak of peaks.perKey.values()) expect(peak).toBeLessThanOrEqual(3);
  });

  it('lets other keys pass a key whose items are all queued first', async () => {
    const order: string[] = [];
    const started: string[] = [];
    await eachInLanes(
      [...items('slow', 10), ...items('fast', 2)],
      { limit: 4, perKey: 2, key: (item) => item.key },
      async (item) => {
        started.push(item.key);
        await new Promise((resolve) => setTimeout(resolve, 1));
        order.push(item.id);
      },
    );
    // With one lane alone, the fast items would start 9th and 10th; in turns they start among the first four.
    expect(started.slice(0, 4).filter((key) => key === 'fast')).toHaveLength(2);
    expect(order).toHaveLength(12);
  });

  it('rejects with the first error after the started items settle, and starts no more', async () => {
    const { work, done } = recorder();
    const all = [...items('a', 3), { key: 'a', id: 'bad', fail: true }, ...items('a', 20)];
    await expect(eachInLanes(all, { limit: 2, perKey: 2, key: (item) => item.key }, work)).rejects.toThrow(
      'failed bad',
    );
    expect(done.length).toBeLessThan(23);
  });

  it('keeps calls that run at once within a shared total, and each within the shared per-key slots', async () => {
    const { work, peaks, done } = recorder();
    const total = new KeySlots(6);
    const slots = new KeySlots(4);
    const first = [...items('slow', 30), ...items('a', 20)];
    const second = [...items('slow', 30).map((item) => ({ ...item, id: `2-${item.id}` })), ...items('b', 20)];
    const options = { limit: 6, perKey: 4, key: (item: { key: string }) => item.key, slots, total };
    await Promise.all([eachInLanes(first, options, work), eachInLanes(second, options, work)]);
    expect(done).toHaveLength(100);
    // Without the shared total, the two calls together reach 12 (fails with `total` ignored).
    expect(peaks.overall).toBe(6);
    expect(peaks.perKey.get('slow')).toBe(4);
    expect(total.held(TOTAL)).toBe(0);
    expect(slots.held('slow')).toBe(0);
  });

  it('hands a released slot to the first waiting take(), before a lane waiting on the same key', async () => {
    const slots = new KeySlots(1);
    slots.tryTake('a');
    const order: string[] = [];
    // The lane listens for releases first; the retry's take() comes after it.
    const lane = eachInLanes(
      [{ key: 'a', id: 'fresh' }],
      { limit: 1, perKey: 1, key: (item) => item.key, slots },
      async (item) => {
        order.push(item.id);
      },
    );
    const waiters = [1, 2, 3].map((n) => slots.take('a').then(() => order.push(`retry-${n}`)));
    slots.release('a');
    await waiters[0];
    // The slot passed to the first waiter: still one held, and neither the lane nor the others ran.
    expect(order).toEqual(['retry-1']);
    expect(slots.held('a')).toBe(1);
    slots.release('a');
    slots.release('a');
    await Promise.all(waiters);
    expect(order).toEqual(['retry-1', 'retry-2', 'retry-3']);
    slots.release('a');
    await lane;
    expect(order).toEqual(['retry-1', 'retry-2', 'retry-3', 'fresh']);
    expect(slots.held('a')).toBe(0);
  });

  it('resolves at once with nothing to do', async () => {
    await expect(eachInLanes([], { limit: 4, perKey: 1, key: String }, async () => undefined)).resolves.toBe(undefined);
  });

  it('keys by origin: scheme, host and port', () => {
    expect(originOf('https://hooks.example.com/a?b=1')).toBe('https://hooks.example.com');
    expect(originOf('http://127.0.0.1:8080/x')).toBe('http://127.0.0.1:8080');
    expect(originOf('{{BASE}}/hook')).toBe('{{BASE}}/hook');
  });
});
