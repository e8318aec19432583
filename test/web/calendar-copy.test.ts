import { describe, expect, it } from 'vitest';
import { occurrencesBetween as domainOccurrences, shortestPeriodMs, type WindowTimes } from '#domain';
import { occurrencesBetween as consoleOccurrences } from '../../apps/web/src/calendar.ts';

/**
 * The console draws maintenance bands with its own copy of the calendar (the bundle cannot import
 * #domain). The copy must answer exactly as the server does, or a band would sit where the runner
 * does not pause: compared here on fixed edge cases and a few thousand random windows.
 */

/** A small seeded generator (mulberry32), so a failure names a case that can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const DAY = 86_400_000;
const UNITS = ['DAY', 'WEEK', 'MONTH'] as const;

function randomWindow(next: () => number): WindowTimes {
  const start = Date.UTC(2000, 0, 1) + Math.floor(next() * 100 * 365) * DAY + Math.floor(next() * DAY);
  if (next() < 0.2) {
    const end = start + 1 + Math.floor(next() * 3 * DAY);
    return { startsAt: iso(start), endsAt: iso(end), repeatUnit: null, repeatInterval: null, repeatEndsAt: null };
  }
  const unit = UNITS[Math.floor(next() * 3)]!;
  const interval = 1 + Math.floor(next() * (next() < 0.8 ? 3 : 365));
  const length = 1 + Math.floor(next() * shortestPeriodMs(unit, interval));
  const repeatEndsAt = next() < 0.5 ? null : iso(start + Math.floor(next() * 5 * 365 * DAY));
  return {
    startsAt: iso(start),
    endsAt: iso(start + length),
    repeatUnit: unit,
    repeatInterval: interval,
    repeatEndsAt,
  };
}
const iso = (ms: number) => new Date(ms).toISOString();

describe('the console copy of occurrencesBetween', () => {
  it('answers as the server does at the edges: month ends, repeat ends, ranges touching an occurrence', () => {
    const monthly31: WindowTimes = {
      startsAt: '2026-01-31T22:00:00.000Z',
      endsAt: '2026-01-31T23:30:00.000Z',
      repeatUnit: 'MONTH',
      repeatInterval: 1,
      repeatEndsAt: '2026-12-31T00:00:00.000Z',
    };
    const ranges: Array<[string, string]> = [
      ['2026-02-01T00:00:00Z', '2026-05-01T00:00:00Z'],
      ['2026-02-28T22:00:00Z', '2026-02-28T22:00:00.001Z'],
      ['2026-02-28T23:30:00Z', '2026-03-31T22:00:00Z'],
      ['2025-01-01T00:00:00Z', '2028-01-01T00:00:00Z'],
    ];
    for (const [from, to] of ranges) {
      const args = [monthly31, Date.parse(from), Date.parse(to)] as const;
      expect(consoleOccurrences(...args)).toEqual(domainOccurrences(...args));
    }
    // February and April: the last day of the month.
    expect(
      consoleOccurrences(monthly31, Date.parse(ranges[0]![0]), Date.parse(ranges[0]![1])).map((o) => iso(o.startMs)),
    ).toEqual(['2026-02-28T22:00:00.000Z', '2026-03-31T22:00:00.000Z', '2026-04-30T22:00:00.000Z']);
  });

  it('answers as the server does for 3,000 random windows and ranges', () => {
    const next = random(22);
    for (let i = 0; i < 3000; i++) {
      const window = randomWindow(next);
      const from = Date.parse(window.startsAt) + Math.floor((next() - 0.2) * 400 * DAY);
      const to = from + Math.floor(next() * 60 * DAY);
      const limit = 1 + Math.floor(next() * 50);
      const expected = domainOccurrences(window, from, to, limit);
      expect(consoleOccurrences(window, from, to, limit), JSON.stringify({ i, window, from, to, limit })).toEqual(
        expected,
      );
    }
  });
});
