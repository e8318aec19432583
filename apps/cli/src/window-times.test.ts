import { describe, expect, it } from 'vitest';
import { describeWhen, durationMs, toUtc } from './window-times.ts';

describe('toUtc', () => {
  it('turns ISO 8601 times with any offset into UTC', () => {
    expect(toUtc('2026-12-01T22:00Z')).toEqual({ utc: '2026-12-01T22:00:00.000Z' });
    expect(toUtc('2026-12-01T23:00+01:00')).toEqual({ utc: '2026-12-01T22:00:00.000Z' });
    expect(toUtc('2026-12-01 23:00:30+0100')).toEqual({ utc: '2026-12-01T22:00:30.000Z' });
    expect(toUtc('2026-12-02T03:30:00.250+05:30')).toEqual({ utc: '2026-12-01T22:00:00.250Z' });
    expect(toUtc('2026-12-01T17:00-05')).toEqual({ utc: '2026-12-01T22:00:00.000Z' });
    // Crossing a year boundary backwards.
    expect(toUtc('2027-01-01T00:30+01:00')).toEqual({ utc: '2026-12-31T23:30:00.000Z' });
  });

  it('refuses a time without a zone, saying how to add one, and dates the calendar lacks', () => {
    expect(toUtc('2026-12-01T22:00')).toEqual({
      error: expect.stringContaining(
        'has no time zone: add Z for UTC or an offset such as +01:00 (e.g. 2026-12-01T22:00Z)',
      ),
    });
    expect(toUtc('2026-12-01')).toEqual({ error: expect.stringContaining('(e.g. 2026-12-01T00:00Z)') });
    for (const bad of ['2026-02-30T10:00Z', '2026-13-01T10:00Z', '2026-12-01T24:00Z', '2026-12-01T22:60Z'])
      expect(toUtc(bad)).toEqual({ error: expect.stringContaining('is not a real date and time') });
    expect(toUtc('next tuesday')).toEqual({ error: expect.stringContaining('is not an ISO 8601 time') });
  });
});

describe('durationMs', () => {
  it('reads 30m, 2h, 1h30m, 1d, 1w and bare minutes', () => {
    expect(durationMs('30m')).toBe(30 * 60_000);
    expect(durationMs('2h')).toBe(2 * 3_600_000);
    expect(durationMs('1h30m')).toBe(90 * 60_000);
    expect(durationMs('1d')).toBe(86_400_000);
    expect(durationMs('1w')).toBe(7 * 86_400_000);
    expect(durationMs('45')).toBe(45 * 60_000);
    expect(durationMs('90s')).toBe(90_000);
  });
  it('refuses anything else', () => {
    for (const bad of ['', 'soon', '1y', '-5m', '0m', '1.5h']) expect(durationMs(bad)).toBeUndefined();
  });
});

describe('describeWhen', () => {
  const at = (startsAt: string, endsAt: string, repeat: Record<string, unknown> = {}) =>
    describeWhen({ startsAt, endsAt, repeatUnit: null, repeatInterval: null, repeatEndsAt: null, ...repeat });
  it('one day: a time range; crossing midnight: both dates', () => {
    expect(at('2026-12-01T22:00:00.000Z', '2026-12-01T22:30:00.000Z')).toBe('2026-12-01 22:00–22:30 UTC');
    expect(at('2026-12-01T23:00:00.000Z', '2026-12-02T01:00:00.000Z')).toBe('2026-12-01 23:00 – 2026-12-02 01:00 UTC');
    expect(at('2026-12-01T22:00:15.000Z', '2026-12-01T22:30:00.000Z')).toBe('2026-12-01 22:00:15–22:30 UTC');
  });
  it('says how often it repeats, and until when', () => {
    const start = ['2026-12-01T22:00:00.000Z', '2026-12-01T22:30:00.000Z'] as const;
    expect(at(...start, { repeatUnit: 'WEEK', repeatInterval: 1 })).toBe('2026-12-01 22:00–22:30 UTC, every 1 week');
    expect(at(...start, { repeatUnit: 'DAY', repeatInterval: 2 })).toBe('2026-12-01 22:00–22:30 UTC, every 2 days');
    expect(at(...start, { repeatUnit: 'MONTH', repeatInterval: 1, repeatEndsAt: '2027-06-30T00:00:00.000Z' })).toBe(
      '2026-12-01 22:00–22:30 UTC, every 1 month until 2027-06-30 00:00 UTC',
    );
  });
});
