import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { occurrenceAt, occurrencesBetween, type WindowTimes } from './calendar.ts';
import { maintenanceAt } from './coverage.ts';

const ms = Date.parse;
const iso = (value: number) => new Date(value).toISOString();
const once: WindowTimes = {
  startsAt: '2026-01-10T22:00:00.000Z',
  endsAt: '2026-01-10T23:00:00.000Z',
  repeatInterval: null,
  repeatUnit: null,
  repeatEndsAt: null,
};

describe('maintenance calendar', () => {
  it('a one-off window covers its start and not its end', () => {
    expect(occurrenceAt(once, ms('2026-01-10T21:59:59.999Z'))).toBeNull();
    expect(occurrenceAt(once, ms('2026-01-10T22:00:00.000Z'))).toEqual({
      startMs: ms(once.startsAt),
      endMs: ms(once.endsAt),
    });
    expect(occurrenceAt(once, ms('2026-01-10T23:00:00.000Z'))).toBeNull();
  });

  it('a weekly window every 2 weeks covers the third week and not the second', () => {
    const biweekly = { ...once, repeatUnit: 'WEEK' as const, repeatInterval: 2 };
    expect(occurrenceAt(biweekly, ms('2026-01-17T22:30:00.000Z'))).toBeNull();
    expect(occurrenceAt(biweekly, ms('2026-01-24T22:30:00.000Z'))?.startMs).toBe(ms('2026-01-24T22:00:00.000Z'));
  });

  it('a monthly window on the 31st falls on the last day of shorter months, and back on the 31st after', () => {
    const monthly = {
      ...once,
      startsAt: '2026-01-31T22:00:00.000Z',
      endsAt: '2026-02-01T01:00:00.000Z',
      repeatUnit: 'MONTH' as const,
      repeatInterval: 1,
    };
    const starts = occurrencesBetween(monthly, ms('2026-01-01T00:00:00Z'), ms('2026-06-01T00:00:00Z')).map((o) =>
      iso(o.startMs),
    );
    expect(starts).toEqual([
      '2026-01-31T22:00:00.000Z',
      '2026-02-28T22:00:00.000Z',
      '2026-03-31T22:00:00.000Z',
      '2026-04-30T22:00:00.000Z',
      '2026-05-31T22:00:00.000Z',
    ]);
    // A leap year's February has a 29th.
    const leap = occurrencesBetween(monthly, ms('2028-02-02T00:00:00Z'), ms('2028-03-01T00:00:00Z'));
    expect(leap.map((o) => iso(o.startMs))).toEqual(['2028-02-29T22:00:00.000Z']);
    // The occurrence that began on April 30 still covers the small hours of May 1.
    expect(occurrenceAt(monthly, ms('2026-05-01T00:30:00Z'))?.startMs).toBe(ms('2026-04-30T22:00:00Z'));
    expect(occurrenceAt(monthly, ms('2026-05-30T22:30:00Z'))).toBeNull();
  });

  it('no occurrence starts after repeatEndsAt, though the last one runs to its end', () => {
    const daily = { ...once, repeatUnit: 'DAY' as const, repeatInterval: 1, repeatEndsAt: '2026-01-12T22:30:00.000Z' };
    expect(occurrenceAt(daily, ms('2026-01-12T22:45:00Z'))?.startMs).toBe(ms('2026-01-12T22:00:00Z'));
    expect(occurrenceAt(daily, ms('2026-01-13T22:15:00Z'))).toBeNull();
    expect(occurrenceAt(daily, ms('2030-01-13T22:15:00Z'))).toBeNull();
    expect(occurrencesBetween(daily, 0, ms('2030-01-01T00:00:00Z'))).toHaveLength(3);
  });

  it('occurrencesBetween lists what overlaps the range, bounded by the limit', () => {
    const daily = { ...once, repeatUnit: 'DAY' as const, repeatInterval: 1 };
    const from = ms('2026-01-11T22:30:00Z');
    const listed = occurrencesBetween(daily, from, ms('2026-01-14T00:00:00Z'));
    expect(listed.map((o) => iso(o.startMs))).toEqual([
      '2026-01-11T22:00:00.000Z',
      '2026-01-12T22:00:00.000Z',
      '2026-01-13T22:00:00.000Z',
    ]);
    expect(occurrencesBetween(daily, 0, ms('2100-01-01T00:00:00Z'), 50)).toHaveLength(50);
  });

  it('occurrenceAt agrees with a walk over every occurrence (property)', () => {
    const units = fc.constantFrom('DAY' as const, 'WEEK' as const, 'MONTH' as const);
    fc.assert(
      fc.property(
        fc.integer({ min: ms('2024-01-01T00:00:00Z'), max: ms('2027-01-01T00:00:00Z') }),
        fc.integer({ min: 1, max: 24 * 60 }),
        units,
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 800 * 86_400_000 }),
        (start, minutes, unit, interval, offset) => {
          const times: WindowTimes = {
            startsAt: iso(start),
            endsAt: iso(start + minutes * 60_000),
            repeatUnit: unit,
            repeatInterval: interval,
            repeatEndsAt: null,
          };
          const at = start - 86_400_000 + offset;
          const walked = occurrencesBetween(times, at, at + 1, 10).find((o) => o.startMs <= at && at < o.endMs);
          expect(occurrenceAt(times, at)).toEqual(walked ?? null);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('coverage: by tag or by id; a pausing window wins over one that does not', () => {
    const base = { ...once, checkIds: [] as string[], pauseRuns: false };
    const windows = [
      { ...base, id: 'w-tag', tags: ['db'] },
      { ...base, id: 'w-id', tags: [], checkIds: ['c-1'], pauseRuns: true },
    ];
    const at = ms('2026-01-10T22:10:00Z');
    expect(maintenanceAt(windows, { id: 'c-1', tags: ['db'] }, at)?.windowId).toBe('w-id');
    expect(maintenanceAt(windows, { id: 'c-2', tags: ['db', 'web'] }, at)).toMatchObject({
      windowId: 'w-tag',
      pauseRuns: false,
    });
    expect(maintenanceAt(windows, { id: 'c-3', tags: ['web'] }, at)).toBeNull();
    expect(maintenanceAt(windows, { id: 'c-1', tags: [] }, ms('2026-01-11T22:10:00Z'))).toBeNull();
  });
});
