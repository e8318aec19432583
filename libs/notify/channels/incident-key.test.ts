import { describe, expect, it } from 'vitest';
import { incidentKey } from './payloads.ts';
import type { AlertSummary } from './summary.ts';

const summary = (kind: AlertSummary['kind'], silence = false) =>
  ({ kind, silence, checkId: 'c1', resolves: false }) as AlertSummary;

describe('incident keys (PagerDuty dedup_key, Opsgenie alias)', () => {
  it('given failures, degradation and their recoveries, then one incident per check', () => {
    expect(incidentKey(summary('failure'))).toBe('vigil-c1');
    expect(incidentKey(summary('degraded'))).toBe('vigil-c1');
    expect(incidentKey(summary('recovery'))).toBe('vigil-c1');
  });

  it('given SSL expiry or a silence (NO_DATA and its recovery), then incidents of their own', () => {
    expect(incidentKey(summary('ssl'))).toBe('vigil-c1-ssl');
    // The end of a silence must never resolve a failure incident that is still open.
    expect(incidentKey(summary('degraded', true))).toBe('vigil-c1-no-data');
    expect(incidentKey(summary('recovery', true))).toBe('vigil-c1-no-data');
  });
});
