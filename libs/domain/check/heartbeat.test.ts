import { describe, expect, it } from 'vitest';
import { classifyPing, heartbeatTimes } from './heartbeat.ts';

const hourly = { period: 1, periodUnit: 'hours', grace: 10, graceUnit: 'minutes' } as const;
const minute = 60_000;
const last = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('heartbeat pings', () => {
  it('converts period and grace to ms', () => {
    expect(heartbeatTimes(hourly)).toEqual({ periodMs: 3_600_000, graceMs: 600_000 });
    expect(heartbeatTimes({ period: 2, periodUnit: 'days', grace: 30, graceUnit: 'seconds' })).toEqual({
      periodMs: 172_800_000,
      graceMs: 30_000,
    });
  });

  it.each([
    ['the first ping', null, 0, 'RECEIVED'],
    ['a ping 10 minutes after the last', last, 10 * minute, 'EARLY'],
    ['a ping at half the period', last, 30 * minute, 'RECEIVED'],
    ['a ping on time', last, 60 * minute, 'RECEIVED'],
    ['a ping within the grace time', last, 65 * minute, 'GRACE'],
    ['a ping at the end of the grace time', last, 70 * minute, 'GRACE'],
    ['a ping after period + grace', last, 71 * minute, 'LATE'],
  ] as const)('classifies %s', (_label, lastPing, after, status) => {
    expect(classifyPing(last + after, lastPing, hourly)).toBe(status);
  });
});
