import { describe, expect, it } from 'vitest';
import { decideLocationAlerts, locationAlertId, locationAlertSchema } from './location-alert.ts';

const base = {
  accountId: '0b6b1d2e-1111-4c2e-9b1f-0a1b2c3d4e5f',
  locationId: '3f2c1b7e-8d4a-4c2e-9b1f-0a1b2c3d4e5f',
  unavailableAfterMs: 600_000,
};
const t0 = Date.parse('2026-11-27T10:00:00Z');

describe('decideLocationAlerts', () => {
  it('given a recent poll, then nothing', () => {
    expect(decideLocationAlerts({ ...base, lastSeenMs: t0, openOutageMs: null, now: t0 + 600_000 })).toEqual({
      alerts: [],
      openOutageMs: null,
    });
  });

  it('given no poll for longer than the window, then one UNAVAILABLE named by the last poll, and the outage opens', () => {
    const decision = decideLocationAlerts({ ...base, lastSeenMs: t0, openOutageMs: null, now: t0 + 600_001 });
    expect(decision.openOutageMs).toBe(t0);
    expect(decision.alerts).toEqual([
      {
        subject: 'LOCATION',
        alertId: locationAlertId(base.locationId, 'ALERT_LOCATION_UNAVAILABLE', t0),
        accountId: base.accountId,
        locationId: base.locationId,
        alertType: 'ALERT_LOCATION_UNAVAILABLE',
        lastSeenAt: '2026-11-27T10:00:00.000Z',
        startedAt: '2026-11-27T10:10:00.000Z',
        occurredAt: '2026-11-27T10:10:00.001Z',
      },
    ]);
    expect(locationAlertSchema.safeParse(decision.alerts[0]).success).toBe(true);
    // Decided again later (a restart): the same id.
    const again = decideLocationAlerts({ ...base, lastSeenMs: t0, openOutageMs: null, now: t0 + 900_000 });
    expect(again.alerts[0]!.alertId).toBe(decision.alerts[0]!.alertId);
  });

  it('given the outage is open and still dark, then nothing more', () => {
    expect(decideLocationAlerts({ ...base, lastSeenMs: t0, openOutageMs: t0, now: t0 + 7_200_000 }).alerts).toEqual([]);
  });

  it('given a poll after the outage, then one RECOVERY and the outage closes', () => {
    const decision = decideLocationAlerts({ ...base, lastSeenMs: t0 + 700_000, openOutageMs: t0, now: t0 + 700_500 });
    expect(decision.openOutageMs).toBeNull();
    expect(decision.alerts.map((a) => [a.alertType, a.alertId])).toEqual([
      ['ALERT_LOCATION_RECOVERY', locationAlertId(base.locationId, 'ALERT_LOCATION_RECOVERY', t0)],
    ]);
  });

  it('given an agent that came and went between two looks, then the recovery and a new outage', () => {
    const back = t0 + 700_000;
    const decision = decideLocationAlerts({ ...base, lastSeenMs: back, openOutageMs: t0, now: back + 600_001 });
    expect(decision.alerts.map((a) => a.alertType)).toEqual(['ALERT_LOCATION_RECOVERY', 'ALERT_LOCATION_UNAVAILABLE']);
    expect(decision.openOutageMs).toBe(back);
  });
});
