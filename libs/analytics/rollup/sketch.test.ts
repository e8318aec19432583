import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SKETCH_ALPHA, ZERO_KEY, addToSketch, sketchKey, sketchQuantile, type Sketch } from './sketch.ts';

/** numpy.percentile(values, 100 * q), method 'linear': what the exact path computes. */
function exact(sorted: number[], q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  return sorted[lo]! + (h - lo) * (sorted[Math.min(lo + 1, sorted.length - 1)]! - sorted[lo]!);
}

function sketchOf(values: number[]): Sketch {
  const sketch: Sketch = new Map();
  for (const value of values) addToSketch(sketch, [sketchKey(value)], [1]);
  return sketch;
}

describe('percentile sketch', () => {
  it('is within α (relative) of the exact interpolated percentile, for any positive samples', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.001, max: 1e7, noNaN: true }), { minLength: 1, maxLength: 400 }),
        fc.constantFrom(0, 0.5, 0.9, 0.95, 0.99, 1),
        (values, q) => {
          const sorted = [...values].sort((a, b) => a - b);
          const want = exact(sorted, q);
          const got = sketchQuantile(sketchOf(values), q, { min: sorted[0]!, max: sorted.at(-1)! })!;
          expect(Math.abs(got - want)).toBeLessThanOrEqual(SKETCH_ALPHA * want * (1 + 1e-9));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('merges by adding counts: two halves give the sketch of the whole', () => {
    const values = Array.from({ length: 1000 }, (_, i) => 1 + ((i * 7919) % 1000));
    const whole = sketchOf(values);
    const merged: Sketch = new Map();
    for (const half of [values.slice(0, 500), values.slice(500)]) {
      const part = sketchOf(half);
      addToSketch(merged, [...part.keys()], [...part.values()]);
    }
    expect(new Map([...merged].sort((a, b) => a[0] - b[0]))).toEqual(new Map([...whole].sort((a, b) => a[0] - b[0])));
  });

  it('reads zero as zero and an empty sketch as no value', () => {
    expect(sketchKey(0)).toBe(ZERO_KEY);
    expect(sketchQuantile(sketchOf([0, 0, 0]), 0.99, { min: 0, max: 0 })).toBe(0);
    expect(sketchQuantile(new Map(), 0.5, { min: 0, max: 0 })).toBeNull();
  });
});
