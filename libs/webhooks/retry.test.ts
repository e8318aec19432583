import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, maxAttempts, nextAttemptAt, shouldRetry } from './retry.ts';

const now = new Date('2025-03-04T05:06:07.000Z');

describe('nextAttemptAt', () => {
  it('follows the spec: 5 retries, 20 seconds apart, 100 seconds in all', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ maxRetries: 5, delayMs: 20_000 });
    expect(maxAttempts(DEFAULT_RETRY_POLICY)).toBe(6);
    let at = now;
    const schedule: string[] = [];
    for (let attempt = 1; ; attempt++) {
      const next = nextAttemptAt(attempt, DEFAULT_RETRY_POLICY, at);
      if (!next) break;
      schedule.push(next.toISOString());
      at = next;
    }
    expect(schedule).toEqual([
      '2025-03-04T05:06:27.000Z',
      '2025-03-04T05:06:47.000Z',
      '2025-03-04T05:07:07.000Z',
      '2025-03-04T05:07:27.000Z',
      '2025-03-04T05:07:47.000Z',
    ]);
    expect(at.getTime() - now.getTime()).toBe(100_000);
  });

  it('is null once the attempts are used up', () => {
    expect(nextAttemptAt(6, DEFAULT_RETRY_POLICY, now)).toBeNull();
    expect(nextAttemptAt(7, DEFAULT_RETRY_POLICY, now)).toBeNull();
    expect(nextAttemptAt(1, { maxRetries: 0, delayMs: 1000 }, now)).toBeNull();
    expect(nextAttemptAt(2, { maxRetries: 2, delayMs: 50 }, now)?.toISOString()).toBe('2025-03-04T05:06:07.050Z');
    expect(nextAttemptAt(3, { maxRetries: 2, delayMs: 50 }, now)).toBeNull();
  });

  it('refuses a nonsensical attempt number or policy', () => {
    expect(() => nextAttemptAt(0, DEFAULT_RETRY_POLICY, now)).toThrow(RangeError);
    expect(() => nextAttemptAt(1.5, DEFAULT_RETRY_POLICY, now)).toThrow(RangeError);
    expect(() => nextAttemptAt(1, { maxRetries: -1, delayMs: 1 }, now)).toThrow(RangeError);
    expect(() => nextAttemptAt(1, { maxRetries: 1, delayMs: Number.NaN }, now)).toThrow(RangeError);
  });
});

describe('shouldRetry', () => {
  it('retries failures only', () => {
    expect(shouldRetry('failed')).toBe(true);
    expect(shouldRetry('refused')).toBe(false);
    expect(shouldRetry('delivered')).toBe(false);
  });
});
