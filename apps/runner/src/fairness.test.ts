import { describe, expect, it } from 'vitest';
import { FairShare } from './fairness.ts';

describe('fair share across accounts', () => {
  it('given one account took every start, then a second account seen is below its share and the first is not', () => {
    const fair = new FairShare();
    const t = 1_000_000;
    for (let i = 0; i < 100; i++) fair.started('big', t + i);
    fair.seen('small', t + 100);
    expect(fair.belowShare('small', t + 100)).toBe(true);
    expect(fair.belowShare('big', t + 100)).toBe(false);
  });

  it('given both started about equally, then neither is below its share by much; a long quiet spell forgets them', () => {
    const fair = new FairShare();
    const t = 2_000_000;
    for (let i = 0; i < 50; i++) {
      fair.started('a', t + i * 10);
      fair.started('b', t + i * 10 + 1);
    }
    // b started last, so a's decayed count is a hair lower: at most one of the two is below.
    expect([fair.belowShare('a', t + 600), fair.belowShare('b', t + 600)].filter(Boolean).length).toBeLessThanOrEqual(
      1,
    );
    // An hour later both are forgotten: a newcomer is alone and at its share.
    fair.seen('c', t + 3_600_000);
    expect(fair.belowShare('c', t + 3_600_000)).toBe(false);
  });

  it('given one account took every start, then the claim rule lists it alone and spares every other, seen or not', () => {
    const fair = new FairShare();
    const t = 3_000_000;
    for (let i = 0; i < 100; i++) fair.started('big', t + i);
    fair.seen('small', t + 100);
    expect(fair.lateRule(t + 100)).toEqual({ groups: ['big'], spareListed: false });
    // Agrees with belowShare for an account never seen: spared.
    expect(fair.belowShare('never-seen', t + 100)).toBe(true);
  });

  it('given no starts yet, then the claim rule spares nobody', () => {
    expect(new FairShare().lateRule(4_000_000)).toEqual({ groups: [], spareListed: true });
  });
});
