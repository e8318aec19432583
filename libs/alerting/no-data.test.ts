import { describe, expect, it } from 'vitest';
import type { AlertInput } from './state-machine.ts';
import { active, emitted, fail, given, muted, pass, runBased, type Step } from './testing.ts';

// Issue 23, item 6: the runner's NO_DATA signal for an external check that sent no results.
const watching: AlertInput['check'] = { ...active, noDataAlerts: true };
const settings = runBased(1);
/** The runner's signal at a minute: not a run, a result marked noData. */
const silence = (minute: number) => pass(minute, { noData: true });
const on = (result: Step) => ({ result: result as ReturnType<typeof pass>, check: watching });

describe('NO_DATA alerts', () => {
  it('given the check asks for them, when the runner signals silence, then ALERT_NO_DATA once per silence', () => {
    expect(emitted({ settings, check: watching }, [pass(0), silence(3), silence(4), silence(5)])).toEqual([
      'ALERT_NO_DATA',
    ]);
  });

  it('given NO_DATA was sent, when a result comes back, then ALERT_NO_DATA_RECOVERY, and a later silence alerts again', () => {
    const steps = [pass(0), silence(3), pass(6), pass(7), silence(10), pass(12)];
    expect(emitted({ settings, check: watching }, steps)).toEqual([
      'ALERT_NO_DATA',
      'ALERT_NO_DATA_RECOVERY',
      'ALERT_NO_DATA',
      'ALERT_NO_DATA_RECOVERY',
    ]);
  });

  it('given NO_DATA was sent, when the result that comes back fails, then the recovery of the silence and the failure', () => {
    expect(emitted({ settings, check: watching }, [pass(0), silence(3), fail(6)])).toEqual([
      'ALERT_NO_DATA',
      'ALERT_NO_DATA_RECOVERY',
      'ALERT_FAILURE',
    ]);
  });

  it('given the setting is off (the default), when the runner signals silence, then nothing, and nothing on return', () => {
    expect(emitted({ settings, check: active }, [pass(0), silence(3), pass(6)])).toEqual([]);
  });

  it('given a muted check, when the runner signals silence, then nothing is sent or owed', () => {
    const quiet = { ...muted, noDataAlerts: true };
    expect(emitted({ settings, check: quiet }, [pass(0), silence(3), pass(6)])).toEqual([]);
  });

  it('given a silence inside a maintenance window, then nothing', () => {
    const maintenance = [
      {
        startsAt: '2025-03-04T09:00:00.000Z',
        endsAt: '2025-03-04T11:00:00.000Z',
        repeatInterval: null,
        repeatUnit: null,
        repeatEndsAt: null,
      },
    ];
    const planned: AlertInput['check'] = { ...watching, maintenance };
    expect(emitted({ settings, check: planned }, [silence(3)])).toEqual([]);
  });

  it('when the signal arrives, then it moves no streak and is not remembered as the last run: a late result still counts', () => {
    const history = given({ settings, check: watching }, [pass(0), on(silence(10))]);
    expect(history.state).toMatchObject({ noData: true, failing: null, troubled: null });
    expect(history.state.last?.startedAt).toBe(pass(0).startedAt);
    const late = history.when(on(fail(5)));
    expect(late.labels).toEqual(['ALERT_NO_DATA_RECOVERY', 'ALERT_FAILURE']);
  });
});
