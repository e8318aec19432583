import { describe, expect, it } from 'vitest';
import { RunSlots } from './run-slots.ts';

/** A run that ends when told to, recording how many of its account's runs overlapped it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('RunSlots', () => {
  it('runs at most perAccount of an account at once, the rest queued in order', async () => {
    const slots = new RunSlots(2, 10);
    const gates = Array.from({ length: 5 }, gate);
    const started: number[] = [];
    let peak = 0;
    const runs = gates.map((g, index) =>
      slots.run('a', async () => {
        started.push(index);
        peak = Math.max(peak, slots.inUse('a'));
        await g.opened;
        return index;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(slots.hasRoom('a')).toBe(false);
    gates[1]!.open();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    for (const g of gates) g.open();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(slots.inUse('a')).toBe(0);
    expect(slots.hasRoom('a')).toBe(true);
  });

  it("a full account never holds up another account's runs", async () => {
    const slots = new RunSlots(1, 10);
    const busy = gate();
    const first = slots.run('a', () => busy.opened);
    const queued = slots.run('a', async () => 'a-second');
    expect(slots.hasRoom('b')).toBe(true);
    expect(await slots.run('b', async () => 'b')).toBe('b');
    busy.open();
    await first;
    expect(await queued).toBe('a-second');
  });

  it('holds the process bound across accounts, and frees a slot when a run throws', async () => {
    const slots = new RunSlots(5, 2);
    const g = gate();
    const a = slots.run('a', () => g.opened);
    const failing = slots.run('b', async () => {
      throw new Error('boom');
    });
    await expect(failing).rejects.toThrow('boom');
    const b = slots.run('b', () => g.opened);
    expect(slots.hasRoom('c')).toBe(false);
    let cStarted = false;
    const c = slots.run('c', async () => {
      cStarted = true;
    });
    await Promise.resolve();
    expect(cStarted).toBe(false);
    g.open();
    await Promise.all([a, b, c]);
    expect(cStarted).toBe(true);
    expect(slots.hasRoom('a') && slots.hasRoom('c')).toBe(true);
  });
});
