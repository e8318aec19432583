import { describe, expect, it } from 'vitest';
import { formatMoment, parseRelative, resolveMomentInput } from './moment.ts';

// A Tuesday, in the morning, with every field distinct.
const at = new Date('2025-03-04T05:06:07.089Z');
const iso = (date: Date | undefined) => date?.toISOString();

describe('formatMoment', () => {
  it.each([
    ['YYYY-MM-DD HH:mm:ss.SSS Z', '2025-03-04 05:06:07.089 +00:00'],
    ['YY M D H m s S SS', '25 3 4 5 6 7 0 08'],
    ['X', '1741064767'],
    ['x', '1741064767089'],
    ['ZZ', '+0000'],
    ['MMMM Do YYYY, h:mm:ss a', 'March 4th 2025, 5:06:07 am'],
    ['ddd, DD MMM YY', 'Tue, 04 Mar 25'],
    ['dddd d', 'Tuesday 2'],
    ['Q DDDD', '1 063'],
    ['[Today is] dddd [at] HH:mm', 'Today is Tuesday at 05:06'],
    ['YYYY-MM-DDTHH:mm:ss', '2025-03-04T05:06:07'],
  ])('formats %s', (format, expected) => {
    expect(formatMoment(at, format)).toBe(expected);
  });

  it('uses moment’s ISO default without a format', () => {
    expect(formatMoment(at)).toBe('2025-03-04T05:06:07+00:00');
  });

  it('gives the 12-hour clock and PM in the afternoon, and 12 at midnight', () => {
    expect(formatMoment(new Date('2025-03-04T17:00:00Z'), 'hh A h a')).toBe('05 PM 5 pm');
    expect(formatMoment(new Date('2025-03-04T00:30:00Z'), 'h:mm A')).toBe('12:30 AM');
  });

  it.each([
    [1, '1st'],
    [2, '2nd'],
    [3, '3rd'],
    [4, '4th'],
    [11, '11th'],
    [12, '12th'],
    [13, '13th'],
    [21, '21st'],
    [22, '22nd'],
    [23, '23rd'],
    [31, '31st'],
  ])('writes day %i as %s', (day, expected) => {
    expect(formatMoment(new Date(Date.UTC(2025, 0, day)), 'Do')).toBe(expected);
  });

  it('says "Invalid date" for an invalid date, as moment does', () => {
    expect(formatMoment(new Date(Number.NaN), 'YYYY')).toBe('Invalid date');
  });
});

describe('parseRelative', () => {
  it.each([
    ['now', '2025-03-04T05:06:07.089Z'],
    ['today', '2025-03-04T05:06:07.089Z'],
    ['yesterday', '2025-03-03T05:06:07.089Z'],
    ['tomorrow', '2025-03-05T05:06:07.089Z'],
    ['2 days ago', '2025-03-02T05:06:07.089Z'],
    ['last week', '2025-02-25T05:06:07.089Z'],
    ['next week', '2025-03-11T05:06:07.089Z'],
    ['in 3 hours', '2025-03-04T08:06:07.089Z'],
    ['an hour ago', '2025-03-04T04:06:07.089Z'],
    ['a minute ago', '2025-03-04T05:05:07.089Z'],
    ['5 minutes from now', '2025-03-04T05:11:07.089Z'],
    ['30 seconds ago', '2025-03-04T05:05:37.089Z'],
    ['in 1.5 hours', '2025-03-04T06:36:07.089Z'],
    ['+2 weeks', '2025-03-18T05:06:07.089Z'],
    ['-1 year', '2024-03-04T05:06:07.089Z'],
    ['last month', '2025-02-04T05:06:07.089Z'],
    ['  2   DAYS   Ago ', '2025-03-02T05:06:07.089Z'],
    ['10m ago', '2025-03-04T04:56:07.089Z'],
  ])('reads "%s"', (expression, expected) => {
    expect(iso(parseRelative(expression, at))).toBe(expected);
  });

  it('moves by calendar months, keeping to the end of a shorter month', () => {
    expect(iso(parseRelative('next month', new Date('2025-01-31T10:00:00Z')))).toBe('2025-02-28T10:00:00.000Z');
    expect(iso(parseRelative('last month', new Date('2024-03-31T10:00:00Z')))).toBe('2024-02-29T10:00:00.000Z');
    expect(iso(parseRelative('1 year ago', new Date('2024-02-29T10:00:00Z')))).toBe('2023-02-28T10:00:00.000Z');
  });

  it.each(['', 'blah', 'last fortnight', '2 parsecs ago', 'in hours', 'ago'])('does not read "%s"', (expression) => {
    expect(parseRelative(expression, at)).toBeUndefined();
  });
});

describe('resolveMomentInput', () => {
  it('takes a relative expression, a Date, epoch milliseconds or an ISO string', () => {
    expect(iso(resolveMomentInput('yesterday', at))).toBe('2025-03-03T05:06:07.089Z');
    expect(resolveMomentInput(at, new Date(0))).toBe(at);
    expect(iso(resolveMomentInput(0, at))).toBe('1970-01-01T00:00:00.000Z');
    expect(iso(resolveMomentInput('2024-12-31T23:59:58.5Z', at))).toBe('2024-12-31T23:59:58.500Z');
    expect(iso(resolveMomentInput('2024-12-31T10:00:00+02:00', at))).toBe('2024-12-31T08:00:00.000Z');
    expect(iso(resolveMomentInput('2024-12-31', at))).toBe('2024-12-31T00:00:00.000Z');
  });

  it('reads a time without an offset as UTC, never as the server’s zone', () => {
    expect(iso(resolveMomentInput('2024-12-31 10:00', at))).toBe('2024-12-31T10:00:00.000Z');
  });

  it('gives an invalid date for anything else', () => {
    for (const input of ['soon', '31/12/2024', null, undefined, {}, ['2024-01-01']]) {
      expect(Number.isNaN(resolveMomentInput(input, at).getTime())).toBe(true);
    }
  });
});
