import { expect } from 'vitest';
import { sleep } from '#core';
import type { ConsumedMessage, HandlerContext } from './port.ts';

type Hook = (batch: ConsumedMessage[], ctx: HandlerContext) => Promise<void> | void;

/** A handler that remembers what it was given; the hook runs first and may throw. */
export function recorder(hook?: Hook) {
  const batches: ConsumedMessage[][] = [];
  const messages: ConsumedMessage[] = [];
  return {
    batches,
    messages,
    values: () => messages.map((message) => message.value),
    handler: async (batch: ConsumedMessage[], ctx: HandlerContext) => {
      await hook?.(batch, ctx);
      batches.push(batch);
      messages.push(...batch);
    },
  };
}

export async function waitFor(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

export function expectWellFormedBatches(batches: ConsumedMessage[][]): void {
  for (const batch of batches) {
    expect(batch.length).toBeGreaterThan(0);
    const { topic, partition } = batch[0]!;
    for (let i = 0; i < batch.length; i++) {
      expect(batch[i]!.topic).toBe(topic);
      expect(batch[i]!.partition).toBe(partition);
      if (i > 0) expect(BigInt(batch[i]!.offset)).toBeGreaterThan(BigInt(batch[i - 1]!.offset));
    }
  }
}

export const sortedValues = (messages: { value: string }[]) => messages.map((message) => message.value).sort();
// Time for a late duplicate or an unwanted re-read to show up before asserting its absence.
export const settleMs = 700;
