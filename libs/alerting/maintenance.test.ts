import { describe, expect, it } from 'vitest';
import type { WindowTimes } from '#domain';
import type { AlertInput } from './state-machine.ts';
import { active, at, degrade, emitted, fail, given, pass, replay, runBased, T0, timeBased } from './testing.ts';

/** A window over minutes [from, to) of the test timeline. */
function window(from: number, to: number, repeat: Partial<WindowTimes> = {}): WindowTimes {
  return { startsAt: at(from), endsAt: at(to), repeatInterval: null, repeatUnit: null, repeatEndsAt: null, ...repeat };
}
const covered = (...windows: WindowTimes[]): AlertInput['check'] => ({ ...active, maintenance: windows });

describe('alert state machine with maintenance windows', () => {
  const settings = runBased(1);

  it('given a window, when the check fails inside it, then nothing is sent', () => {
    const check = covered(window(0, 30));
    expect(emitted({ settings, check }, [fail(0), fail(5), degrade(10), fail(29)])).toEqual([]);
  });

  it('given a failure that began inside the window, when it still fails on the first run after, then it alerts as a fresh failure', () => {
    const check = covered(window(0, 30));
    expect(replay({ settings, check }, [fail(10), fail(20), fail(30), pass(40)])).toEqual([
      [],
      [],
      ['ALERT_FAILURE'],
      ['ALERT_RECOVERY'],
    ]);
  });

  it('given a failure that began inside the window, when the first run after it passes, then nothing at all', () => {
    const check = covered(window(0, 30));
    expect(emitted({ settings, check }, [fail(10), fail(20), pass(30), pass(40)])).toEqual([]);
  });

  it('given a threshold of 3 runs, when a failure continues past the window, then the count starts after the window', () => {
    const check = covered(window(0, 30));
    expect(replay({ settings: runBased(3), check }, [fail(10), fail(20), fail(30), fail(31), fail(32)])).toEqual([
      [],
      [],
      [],
      [],
      ['ALERT_FAILURE'],
    ]);
  });

  it('given a time-based threshold, when a failure spans the window, then only the time after the window counts', () => {
    const check = covered(window(0, 30));
    const steps = [fail(0), fail(20), fail(30), fail(34), fail(35)];
    expect(replay({ settings: timeBased(5), check }, steps)).toEqual([[], [], [], [], ['ALERT_FAILURE']]);
  });

  it('given a failure announced before a window that starts mid-failure, when it recovers inside, then the recovery waits for the first run after', () => {
    const check = covered(window(10, 30));
    expect(replay({ settings, check }, [fail(0), fail(10), pass(20), pass(30)])).toEqual([
      ['ALERT_FAILURE'],
      [],
      [],
      ['ALERT_RECOVERY'],
    ]);
  });

  it('given a failure announced before the window, when reminders fall due inside it, then none is sent inside it', () => {
    const reminding = runBased(1, { amount: 5, interval: 5 });
    const check = covered(window(10, 30));
    const steps = [fail(0), fail(5), fail(10), fail(15), fail(20), fail(25), fail(30)];
    expect(replay({ settings: reminding, check }, steps)).toEqual([
      ['ALERT_FAILURE'],
      ['ALERT_FAILURE#1'],
      [],
      [],
      [],
      [],
      ['ALERT_FAILURE#2'],
    ]);
  });

  it('given back-to-back windows, when the check fails across both, then nothing until after the second', () => {
    const check = covered(window(0, 10), window(10, 20));
    expect(replay({ settings, check }, [fail(5), fail(10), fail(19), fail(20)])).toEqual([
      [],
      [],
      [],
      ['ALERT_FAILURE'],
    ]);
  });

  it('given a window edited while active to end earlier, when the check fails after the new end, then it alerts', () => {
    const before = covered(window(0, 60));
    const edited = covered(window(0, 20));
    const history = given({ settings }, [
      { result: fail(5), check: before },
      { result: fail(10), check: before },
    ]);
    expect(history.historyLabels).toEqual([]);
    expect(history.when({ result: fail(15), check: edited }).labels).toEqual([]);
    expect(history.when({ result: fail(25), check: edited }).labels).toEqual(['ALERT_FAILURE']);
    // Unedited, the same run would still be inside the window.
    expect(history.when({ result: fail(25), check: before }).labels).toEqual([]);
  });

  it('given a window edited while active to end later, when the check fails in the added time, then nothing', () => {
    const check = covered(window(0, 20));
    const extended = covered(window(0, 40));
    expect(emitted({ settings, check }, [fail(5), { result: fail(25), check: extended }])).toEqual([]);
  });

  it('given a daily repeat, when the check fails in the second day window, then nothing; between the windows it alerts', () => {
    const daily = window(0, 60, { repeatUnit: 'DAY', repeatInterval: 1 });
    const check = covered(daily);
    const day = 24 * 60;
    expect(replay({ settings, check }, [fail(day + 30), fail(day + 60), pass(day + 61)])).toEqual([
      [],
      ['ALERT_FAILURE'],
      ['ALERT_RECOVERY'],
    ]);
  });

  it('given a monthly repeat on the 31st, when it crosses into a 30-day month, then it covers the last day of that month', () => {
    // T0 is 2025-03-04; a window from 2025-01-31 10:00 for two hours, every month.
    const start = Date.parse('2025-01-31T10:00:00.000Z');
    const minute = (iso: string) => (Date.parse(iso) - T0) / 60_000;
    const monthly = {
      startsAt: new Date(start).toISOString(),
      endsAt: new Date(start + 2 * 3_600_000).toISOString(),
      repeatUnit: 'MONTH' as const,
      repeatInterval: 1,
      repeatEndsAt: null,
    };
    const check = covered(monthly);
    const april30 = minute('2025-04-30T11:00:00.000Z');
    const may1 = minute('2025-05-01T11:00:00.000Z');
    expect(replay({ settings, check }, [fail(april30), fail(may1)])).toEqual([[], ['ALERT_FAILURE']]);
  });

  it('given a window over another check only (no coverage passed), when the check fails, then it alerts as usual', () => {
    expect(emitted({ settings, check: covered() }, [fail(0)])).toEqual(['ALERT_FAILURE']);
  });
});
