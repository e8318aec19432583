import { describe, expect, it } from 'vitest';
import type { CheckStatus } from './api.gen.ts';
import { statusOf } from './data.ts';

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
