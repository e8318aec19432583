import { describe, expect, it } from 'vitest';
import { madeAt, stale, STALE_AFTER_MS } from './sweep.ts';
import { uniqueSuffix } from './services.ts';

describe('stale test data', () => {
  const now = Date.now();
  const old = (now - STALE_AFTER_MS - 60_000).toString(36);
  const fresh = (now - 60_000).toString(36);

  it('reads the time a suffix was made from database and topic names', () => {
    const suffix = uniqueSuffix();
    expect(Math.abs(madeAt(`vigil_test_${suffix}`)! - Date.now())).toBeLessThan(5_000);
    expect(madeAt(`t${suffix}.check-results`)).toBe(madeAt(`vigil_three_${suffix}`));
  });

  it('picks only ours and only old ones', () => {
    const names = [
      `vigil_test_${old}abc123`,
      `vigil_three_${old}xyz`,
      `t${old}q1w2.check-results`,
      `vigil_test_${fresh}abc123`,
      `t${fresh}q1w2.check-results`,
      'telemetry.events',
      'vigil',
      'default',
      'system',
      `vigil_bench_${old}`,
    ];
    expect(stale(names, now)).toEqual([names[0], names[1], names[2]]);
  });
});
