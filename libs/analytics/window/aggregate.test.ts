import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { select } from './aggregate.ts';

describe('select', () => {
  it('finds the k-th smallest and leaves nothing smaller after it, on any samples', () => {
    const values = fc.oneof(
      fc.array(fc.double({ noNaN: true }), { minLength: 1, maxLength: 300 }),
      // Many repeats, and runs already sorted or reversed: the cases a naive pivot gets wrong or slow.
      fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 1, maxLength: 300 }),
      fc.integer({ min: 1, max: 2000 }).map((n) => Array.from({ length: n }, (_, i) => i)),
      fc.integer({ min: 1, max: 2000 }).map((n) => Array.from({ length: n }, (_, i) => n - i)),
    );
    fc.assert(
      fc.property(values, fc.nat(), (list, seed) => {
        const sorted = Float64Array.from(list).sort();
        const k = seed % list.length;
        const samples = Float64Array.from(list);
        expect(select(samples, k)).toBe(sorted[k]);
        for (let i = 0; i < k; i++) expect(samples[i]! <= samples[k]!).toBe(true);
        for (let i = k + 1; i < samples.length; i++) expect(samples[i]! >= samples[k]!).toBe(true);
        expect([...samples].sort((a, b) => a - b)).toEqual([...sorted]);
      }),
      { numRuns: 3_000, seed: 29 },
    );
  });
});
