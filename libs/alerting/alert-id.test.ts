import { describe, expect, it } from 'vitest';
import { ALERT_ID_NAMESPACE, alertId, uuidV5 } from './alert-id.ts';
import { initialAlertState } from './state.ts';
import { evolveAlertState } from './state-machine.ts';
import { CHECK_ID, active, degrade, fail, pass, runBased } from './testing.ts';

const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const parts = {
  checkId: CHECK_ID,
  alertType: 'ALERT_FAILURE',
  resultId: '00000000-0000-4000-8000-000000000001',
  reminderSequence: 0,
} as const;

describe('alert ids', () => {
  it('given the RFC 9562 DNS namespace, when hashing www.example.com, then the published UUIDv5 comes out', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });

  it('given a namespace that is not a UUID, when hashing, then it is refused', () => {
    expect(() => uuidV5('x', 'not-a-uuid')).toThrow(TypeError);
  });

  it('given the same parts, when the id is derived twice, then it is the same version-5 UUID', () => {
    expect(alertId(parts)).toBe(alertId({ ...parts }));
    expect(alertId(parts)).toMatch(UUID_V5);
  });

  it('given parts in upper case, when the id is derived, then it equals the lower-case one', () => {
    expect(alertId({ ...parts, checkId: CHECK_ID.toUpperCase(), resultId: parts.resultId.toUpperCase() })).toBe(
      alertId(parts),
    );
  });

  it('given one differing part, when ids are derived, then each differs', () => {
    const ids = [
      alertId(parts),
      alertId({ ...parts, checkId: '5d2f0a9c-3b1e-4c7d-8a6f-0000000000c2' }),
      alertId({ ...parts, alertType: 'ALERT_RECOVERY' }),
      alertId({ ...parts, resultId: '00000000-0000-4000-8000-000000000002' }),
      alertId({ ...parts, reminderSequence: 1 }),
    ];

    expect(new Set(ids).size).toBe(ids.length);
  });

  it('given the namespace, when read, then it is a fixed UUID: changing it would re-send replayed alerts', () => {
    expect(ALERT_ID_NAMESPACE).toBe('9f3a6c1e-52b4-4d0a-8e7f-3c1d2b5a6e90');
  });

  it('given an alerter that crashed before saving its state, when it replays the same results from the old state, then it decides the same alert ids', () => {
    const settings = runBased(1, { amount: 1, interval: 1 });
    const results = [fail(0), fail(1), degrade(2), pass(3, { ssl: { daysRemaining: 3, domain: 'example.com' } })];
    const run = () => {
      let state = initialAlertState();
      return results.flatMap((result) => {
        const next = evolveAlertState(state, { result, settings, check: active });
        state = next.state;
        return next.alerts.map((alert) => alert.alertId);
      });
    };

    const first = run();

    expect(first).toHaveLength(5);
    expect(run()).toEqual(first);
    expect(new Set(first).size).toBe(first.length);
  });

  it('given a decision, when its id is recomputed from its parts, then they agree', () => {
    const result = fail(0);
    const [decision] = evolveAlertState(initialAlertState(), { result, settings: runBased(1), check: active }).alerts;

    expect(decision?.alertId).toBe(
      alertId({ checkId: result.checkId, alertType: 'ALERT_FAILURE', resultId: result.id, reminderSequence: 0 }),
    );
  });
});
