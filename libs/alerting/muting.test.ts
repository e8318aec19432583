import { describe, expect, it } from 'vitest';
import {
  active,
  deactivated,
  degrade,
  emitted,
  fail,
  given,
  muted,
  pass,
  replay,
  runBased,
  timeBased,
} from './testing.ts';

describe.each([
  { name: 'muted', silent: muted },
  { name: 'deactivated', silent: deactivated },
])('a $name check', ({ silent }) => {
  const settings = runBased(1, { amount: 2, interval: 1 });
  const quiet = (result: ReturnType<typeof fail>) => ({ result, check: silent });
  const loud = (result: ReturnType<typeof fail>) => ({ result, check: active });

  it('given it is silent, when it fails, degrades and recovers, then nothing is sent but the state is tracked', () => {
    const history = given({ settings, check: silent }, [fail(0), fail(1), fail(2)]);

    expect(history.historyLabels).toEqual([]);
    expect(history.state.status).toBe('failing');
    expect(history.state.failing?.count).toBe(3);
    expect(emitted({ settings, check: silent }, [fail(0), degrade(1), pass(2), degrade(3), pass(4)])).toEqual([]);
  });

  it('given it started failing while silent, when it is re-enabled while still failing, then no retroactive ALERT_FAILURE and no reminders', () => {
    const steps = [quiet(fail(0)), loud(fail(1)), loud(fail(2)), loud(fail(3))];

    expect(emitted({ settings }, steps)).toEqual([]);
  });

  it('given it started failing while silent, when it recovers after being re-enabled, then no ALERT_RECOVERY for a failure nobody was told about', () => {
    expect(emitted({ settings }, [quiet(fail(0)), loud(fail(1)), loud(pass(2))])).toEqual([]);
  });

  it('given a failure alert was sent, when it recovers while silent, then nothing, and nothing is owed after re-enabling', () => {
    const steps = [loud(fail(0)), quiet(pass(1)), loud(pass(2)), loud(pass(3))];

    expect(emitted({ settings }, steps)).toEqual(['ALERT_FAILURE']);
  });

  it('given a failure alert was sent and the check was silenced, when it recovers after re-enabling, then ALERT_RECOVERY', () => {
    const settingsNoReminders = runBased(1);
    const steps = [loud(fail(0)), quiet(fail(1)), loud(fail(2)), loud(pass(3))];

    expect(emitted({ settings: settingsNoReminders }, steps)).toEqual(['ALERT_FAILURE', 'ALERT_RECOVERY']);
  });

  it('given a failure alert was sent, when reminders fall due while silent, then they are used up, not sent in a burst later', () => {
    const steps = [loud(fail(0)), quiet(fail(1)), quiet(fail(2)), loud(fail(3)), loud(fail(4))];

    expect(replay({ settings }, steps)).toEqual([['ALERT_FAILURE'], [], [], [], []]);
  });

  it('given a failure alert was sent, when one reminder falls due while silent, then the next after re-enabling carries sequence 2', () => {
    const steps = [loud(fail(0)), quiet(fail(1)), loud(fail(2))];

    expect(emitted({ settings }, steps)).toEqual(['ALERT_FAILURE', 'ALERT_FAILURE#2']);
  });

  it('given it became degraded while silent, when it fails after re-enabling, then ALERT_FAILURE: a new change, announced at once', () => {
    const steps = [quiet(degrade(0)), loud(degrade(1)), loud(fail(2)), loud(pass(3))];

    expect(replay({ settings: runBased(1) }, steps)).toEqual([[], [], ['ALERT_FAILURE'], ['ALERT_RECOVERY']]);
  });

  it('given it failed while silent, when it degrades after re-enabling, then ALERT_DEGRADED, and the recovery is ALERT_DEGRADED_RECOVERY', () => {
    const steps = [quiet(fail(0)), loud(degrade(1)), loud(pass(2))];

    expect(replay({ settings: runBased(1) }, steps)).toEqual([[], ['ALERT_DEGRADED'], ['ALERT_DEGRADED_RECOVERY']]);
  });

  it('given the time threshold was reached while silent, when re-enabled still failing, then no alert', () => {
    const steps = [quiet(fail(0)), quiet(fail(5)), loud(fail(6)), loud(fail(20))];

    expect(emitted({ settings: timeBased(5) }, steps)).toEqual([]);
  });

  it('given it was silenced below the threshold, when re-enabled and the threshold is reached, then ALERT_FAILURE: it was not reached while silent', () => {
    const steps = [quiet(fail(0)), quiet(fail(1)), loud(fail(2))];

    expect(replay({ settings: runBased(3) }, steps)).toEqual([[], [], ['ALERT_FAILURE']]);
  });
});
