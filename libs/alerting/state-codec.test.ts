import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import { parseAlertState, serializeAlertState } from './state-codec.ts';
import { initialAlertState, type CheckAlertState } from './state.ts';
import { evolveAlertState } from './state-machine.ts';
import { active, degrade, fail, given, pass, runBased } from './testing.ts';

const settings = runBased(2, { amount: 3, interval: 1 });
const history = [fail(0), fail(1), fail(2, { ssl: { daysRemaining: 5, domain: 'example.com' } }), degrade(3), fail(4)];

describe('alert state codec', () => {
  it('given the initial state, when serialized and parsed, then it comes back equal', () => {
    expect(parseAlertState(serializeAlertState(initialAlertState()))).toEqual(initialAlertState());
  });

  it('given a state with streaks, reminders, an SSL day and tied ids, when serialized and parsed, then it comes back equal', () => {
    const { state } = given({ settings }, history);

    expect(state.reminders).not.toBeNull();
    expect(state.sslDay).not.toBeNull();
    expect(parseAlertState(serializeAlertState(state))).toEqual(state);
  });

  it('given an alerter that stores and reloads the state after every result, when it runs, then it decides exactly what an in-memory one does', () => {
    const steps = [...history, fail(5), fail(6), pass(7), pass(8)];
    const run = (roundTrip: boolean) => {
      let state = initialAlertState();
      return steps.flatMap((result) => {
        const next = evolveAlertState(state, { result, settings, check: active });
        state = roundTrip ? parseAlertState(serializeAlertState(next.state)) : next.state;
        return next.alerts.map((alert) => alert.alertId);
      });
    };

    expect(run(true)).toEqual(run(false));
  });

  it('given a state written by a newer version, when parsed, then it is rejected with the version in the message', () => {
    const newer = JSON.stringify({ ...initialAlertState(), version: 2 });

    expect(() => parseAlertState(newer)).toThrow(ValidationError);
    expect(() => parseAlertState(newer)).toThrow(/unsupported version 2/);
  });

  it('given a state without a version, when parsed, then it is rejected', () => {
    const { version: _version, ...unversioned } = initialAlertState();

    expect(() => parseAlertState(JSON.stringify(unversioned))).toThrow(/unsupported version undefined/);
  });

  it.each([
    ['not JSON', '{"version":1,', /not valid JSON/],
    ['not an object', '42', /unsupported version/],
    ['an unknown status', JSON.stringify({ ...initialAlertState(), status: 'exploding' }), /^alert state: status: /],
    [
      'a zero-length streak',
      JSON.stringify({ ...initialAlertState(), failing: { count: 0, since: '2025-03-04T10:00:00.000Z' } }),
      /failing\.count/,
    ],
    ['a bad day', JSON.stringify({ ...initialAlertState(), sslDay: '04/03/2025' }), /sslDay/],
    ['an unknown field', JSON.stringify({ ...initialAlertState(), extra: true }), /extra|Unrecognized/],
  ])('given %s, when parsed, then ValidationError', (_name, json, message) => {
    expect(() => parseAlertState(json)).toThrow(ValidationError);
    expect(() => parseAlertState(json)).toThrow(message);
  });

  it('given a state broken in memory, when serialized, then it is refused rather than persisted', () => {
    const broken = { ...initialAlertState(), reminders: { sent: -1, lastAt: 'never' } } as CheckAlertState;

    expect(() => serializeAlertState(broken)).toThrow(ValidationError);
  });
});
