import { describe, expect, it } from 'vitest';
import { inPipeline } from './pipeline.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('inPipeline', () => {
  it('runs consecutive chunks in order, at most `depth` at once, and resolves after the last', async () => {
    const started: number[][] = [];
    const finished: number[] = [];
    let running = 0;
    let peak = 0;
    await inPipeline(
      Array.from({ length: 23 }, (_, i) => i),
      { size: 5, depth: 2 },
      async (chunk) => {
        started.push(chunk);
        peak = Math.max(peak, ++running);
        // Earlier chunks take longer, so a later one may end first.
        await tick(chunk[0] === 0 ? 15 : 3);
        running--;
        finished.push(chunk[0]!);
      },
    );
    expect(started).toEqual([
      [0, 1, 2, 3, 4],
      [5, 6, 7, 8, 9],
      [10, 11, 12, 13, 14],
      [15, 16, 17, 18, 19],
      [20, 21, 22],
    ]);
    expect(peak).toBe(2);
    expect(finished.sort((a, b) => a - b)).toEqual([0, 5, 10, 15, 20]);
  });

  it('takes the next chunk while the one before still runs (depth 1 does not)', async () => {
    for (const [depth, expected] of [
      [2, ['start 1', 'start 2', 'end 1', 'end 2']],
      [1, ['start 1', 'end 1', 'start 2', 'end 2']],
    ] as const) {
      const events: string[] = [];
      await inPipeline([1, 2], { size: 1, depth }, async ([n]) => {
        events.push(`start ${n}`);
        await tick(n === 1 ? 10 : 20);
        events.push(`end ${n}`);
      });
      expect(events).toEqual(expected);
    }
  });

  it('starts no chunk after a failure, and rejects once the running ones settle', async () => {
    const seen: number[] = [];
    let secondSettled = false;
    const run = inPipeline([1, 2, 3, 4, 5], { size: 1, depth: 2 }, async (chunk) => {
      seen.push(chunk[0]!);
      if (chunk[0] === 1) {
        await tick(1);
        throw new Error('chunk 1 failed');
      }
      await tick(20);
      if (chunk[0] === 2) secondSettled = true;
    });
    await expect(run).rejects.toThrow('chunk 1 failed');
    expect(seen).toEqual([1, 2]);
    // The caller may retry the whole input only once nothing of it still runs.
    expect(secondSettled).toBe(true);
  });

  it('runs a small input as one chunk and an empty one not at all', async () => {
    const chunks: number[][] = [];
    await inPipeline([1, 2, 3], { size: 5, depth: 2 }, async (chunk) => void chunks.push(chunk));
    await inPipeline([], { size: 5, depth: 2 }, async (chunk) => void chunks.push(chunk));
    expect(chunks).toEqual([[1, 2, 3]]);
  });
});
