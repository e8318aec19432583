import { describe, expect, it } from 'vitest';
import type { CheckStatus } from './api.gen.ts';
import { skippedLines, statusOf } from './data.ts';

const status = (fields: Partial<CheckStatus>) =>
  ({ hasFailures: false, isDegraded: false, noData: false, ...fields }) as CheckStatus;

describe('the status the console shows', () => {
  it('given an external check silent for two windows, then no data, whatever its last result said', () => {
    expect(statusOf(status({ noData: true }))).toBe('no data');
    expect(statusOf(status({ noData: true, hasFailures: true }))).toBe('no data');
  });

  it('given a fresh result, then what it says; given none, no data', () => {
    expect(statusOf(status({ hasFailures: true }))).toBe('failing');
    expect(statusOf(status({ isDegraded: true }))).toBe('degraded');
    expect(statusOf(status({}))).toBe('passing');
    expect(statusOf(undefined)).toBe('no data');
  });
});

describe('the skipped runs the check page names', () => {
  it('given skips per location, then one line each saying how many and why', () => {
    const skipped = [
      { location: 'local', lastHour: 12, reason: 'saturated' as const },
      { location: 'eu-west-1', lastHour: 1, reason: 'runners-down' as const },
    ];
    expect(skippedLines(status({ skipped }))).toEqual([
      '12 runs skipped in the last hour: runner saturated in local',
      '1 run skipped in the last hour: no runner was up in eu-west-1',
    ]);
    expect(skippedLines(status({}))).toEqual([]);
    expect(skippedLines(undefined)).toEqual([]);
  });
});
