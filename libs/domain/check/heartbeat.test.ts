import { describe, expect, it } from 'vitest';
import { checkSchema } from './check-schema.ts';
import { classifyPing, heartbeatTimes, isNoData, silenceTimes } from './heartbeat.ts';

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

describe('NO_DATA for external checks', () => {
  const base = { id: '00000000-0000-4000-8000-000000000001', name: 'Fed from outside' };
  const external = checkSchema.parse({
    ...base,
    checkType: 'API',
    frequency: 5,
    degradedResponseTime: 1,
    maxResponseTime: 2,
  });
  const lastRun = new Date(last).toISOString();

  it('given an external check, watches it with one frequency window as period and one as grace', () => {
    expect(silenceTimes(external)).toEqual({ periodMs: 5 * minute, graceMs: 5 * minute });
  });

  it('given a check Vigil runs, or a deactivated one, does not watch it', () => {
    const managed = checkSchema.parse({ ...external, request: { url: 'https://example.com/' } });
    expect(silenceTimes(managed)).toBeNull();
    expect(isNoData(managed, lastRun, last + 60 * minute)).toBe(false);
    expect(silenceTimes({ ...external, activated: false })).toBeNull();
  });

  it.each([
    ['one window after the last result', 5, false],
    ['exactly two windows after', 10, false],
    ['just past two missed windows', 10.001, true],
    ['an hour later', 60, true],
  ] as const)('when it is %s, then NO_DATA is %s', (_label, after, expected) => {
    expect(isNoData(external, lastRun, last + after * minute)).toBe(expected);
  });

  it('given no result ever, shows no NO_DATA: there is no status to mark', () => {
    expect(isNoData(external, null, last + 60 * minute)).toBe(false);
  });
});
