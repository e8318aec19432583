import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import {
  bucketCount,
  bucketStarts,
  checkInterval,
  parseInstant,
  quickRangeWindow,
  resolveWindow,
  type QuickRange,
} from './window.ts';

const iso = (window: { from: Date; to: Date }) => [window.from.toISOString(), window.to.toISOString()];

describe('quickRangeWindow', () => {
  // [now, range, from, to]: UTC calendar, weeks from Monday, "last" ranges end where "this" starts.
  const cases: [string, QuickRange, string, string][] = [
    ['2024-01-01T00:00:00.000Z', 'thisWeek', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z'],
    ['2023-12-31T23:59:59.999Z', 'thisWeek', '2023-12-25T00:00:00.000Z', '2023-12-31T23:59:59.999Z'],
    ['2024-03-10T12:00:00.000Z', 'thisWeek', '2024-03-04T00:00:00.000Z', '2024-03-10T12:00:00.000Z'],
    ['2024-01-03T10:00:00.000Z', 'lastWeek', '2023-12-25T00:00:00.000Z', '2024-01-01T00:00:00.000Z'],
    ['2024-01-15T08:00:00.000Z', 'lastMonth', '2023-12-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z'],
    ['2024-03-31T23:00:00.000Z', 'lastMonth', '2024-02-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
    ['2024-03-01T00:00:00.000Z', 'thisMonth', '2024-03-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
    ['2024-02-29T06:00:00.000Z', 'thisMonth', '2024-02-01T00:00:00.000Z', '2024-02-29T06:00:00.000Z'],
    ['2024-03-31T02:30:00.000Z', 'last24Hours', '2024-03-30T02:30:00.000Z', '2024-03-31T02:30:00.000Z'],
    ['2024-03-01T00:00:00.000Z', 'last7Days', '2024-02-23T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
    ['2024-03-01T00:00:00.000Z', 'last30Days', '2024-01-31T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
  ];
  it.each(cases)('at %s, %s is [%s, %s)', (now, range, from, to) => {
    expect(iso(quickRangeWindow(range, new Date(now)))).toEqual([from, to]);
  });
});

describe('parseInstant', () => {
  it('reads whole unix seconds', () => {
    expect(parseInstant('0', 'from').toISOString()).toBe('1970-01-01T00:00:00.000Z');
    expect(parseInstant('1704067200', 'from').toISOString()).toBe('2024-01-01T00:00:00.000Z');
  });

  it('reads ISO 8601 dates, times, offsets', () => {
    expect(parseInstant('2024-01-01', 'to').toISOString()).toBe('2024-01-01T00:00:00.000Z');
    expect(parseInstant('2024-01-01T10:00Z', 'to').toISOString()).toBe('2024-01-01T10:00:00.000Z');
    expect(parseInstant('2024-01-01T10:00:00.123-0230', 'to').toISOString()).toBe('2024-01-01T12:30:00.123Z');
  });

  it.each([
    '',
    'now',
    '2024-01-01T10:00:00',
    '1e9',
    '-5',
    '2024/01/01',
    '2100-01-01T00:00:00Z',
    '0.5',
    '1704067200.5',
    '2024-02-30',
    '2023-02-29T00:00:00Z',
    '2024-00-10',
  ])('refuses %j, naming the parameter', (value) => {
    expect(() => parseInstant(value, 'to')).toThrow(ValidationError);
    expect(() => parseInstant(value, 'to')).toThrow(/^to: /);
  });
});

describe('resolveWindow', () => {
  const now = new Date('2024-05-05T05:05:05Z');
  it('lets from alone run to now', () => {
    expect(iso(resolveWindow({ from: '2024-05-01' }, now))).toEqual([
      '2024-05-01T00:00:00.000Z',
      '2024-05-05T05:05:05.000Z',
    ]);
  });
  it('refuses a from in the future without to', () => {
    expect(() => resolveWindow({ from: '2024-06-01' }, now)).toThrow(/^from: must be before to/);
  });
});

describe('buckets', () => {
  const window = { from: new Date('2024-01-01T23:10:00Z'), to: new Date('2024-01-02T01:00:00Z') };
  it('are aligned to the epoch and cover the window, partial ends included', () => {
    expect(bucketStarts(window, 60).map((ms) => new Date(ms).toISOString())).toEqual([
      '2024-01-01T23:00:00.000Z',
      '2024-01-02T00:00:00.000Z',
    ]);
    expect(bucketCount(window, 7)).toBe(
      Math.floor((window.to.getTime() - 1) / 420_000) - Math.floor(window.from.getTime() / 420_000) + 1,
    );
    expect(bucketStarts(window, 1440).map((ms) => new Date(ms).toISOString())).toEqual([
      '2024-01-01T00:00:00.000Z',
      '2024-01-02T00:00:00.000Z',
    ]);
  });
  it('stop at 10,000 with a suggestion that fits', () => {
    const year = { from: new Date('2024-01-01T00:00:00Z'), to: new Date('2025-01-01T00:00:00Z') };
    expect(() => checkInterval(year, 60)).not.toThrow();
    expect(() => checkInterval(year, 52)).toThrow(
      /^aggregationInterval: 52 minutes gives 10136 buckets in this window, more than 10000; use a larger interval, at least 53 minutes$/,
    );
    expect(() => checkInterval(year, 53)).not.toThrow();
  });
});
