import { describe, expect, it } from 'vitest';
import type { AlertSettings, CheckResult } from '#domain';
import { degrade, emitted, fail, given, pass, replay, runBased, timeBased } from './testing.ts';

interface Config {
  name: string;
  settings: AlertSettings;
  /** Minutes of the runs that do not yet reach the threshold (relative to the first). */
  below: number[];
  /** Minute of the run that reaches it. */
  reach: number;
}

const configs: Config[] = [
  { name: 'RUN_BASED, threshold 1', settings: runBased(1), below: [], reach: 0 },
  { name: 'RUN_BASED, threshold 3', settings: runBased(3), below: [0, 1], reach: 2 },
  { name: 'TIME_BASED, 5 minutes', settings: timeBased(5), below: [0, 1, 2, 3, 4], reach: 5 },
  { name: 'TIME_BASED, 10 minutes, 2-minute runs', settings: timeBased(10), below: [0, 2, 4, 6, 8], reach: 10 },
];

describe.each(configs)('the alert table, $name', ({ settings, below, reach }) => {
  const scenario = { settings };
  /** Runs from `start` that just reach the threshold; the last is the one that alerts. */
  const escalate = (factory: (minute: number) => CheckResult, start = 0) =>
    [...below, reach].map((m) => factory(start + m));
  const end = (start = 0) => start + reach;

  it('given a passing check, when failing runs reach the threshold, then one ALERT_FAILURE is sent on the run that reaches it', () => {
    const steps = [pass(-1), ...escalate(fail), fail(end() + 1), fail(end() + 2)];

    const perStep = replay(scenario, steps);

    expect(perStep).toEqual([[], ...below.map(() => []), ['ALERT_FAILURE'], [], []]);
  });

  it('given a failure alert was sent, when the check passes, then ALERT_RECOVERY is sent once', () => {
    const history = given(scenario, escalate(fail));

    const recovered = history.when(pass(end() + 1));

    expect(history.historyLabels).toEqual(['ALERT_FAILURE']);
    expect(recovered.labels).toEqual(['ALERT_RECOVERY']);
    expect(emitted({ settings, state: recovered.state }, [pass(end() + 2)])).toEqual([]);
  });

  it('given a passing check, when degraded runs reach the threshold, then one ALERT_DEGRADED is sent', () => {
    const perStep = replay(scenario, [...escalate(degrade), degrade(end() + 1)]);

    expect(perStep).toEqual([...below.map(() => []), ['ALERT_DEGRADED'], []]);
  });

  it('given a degraded alert was sent, when the check passes, then ALERT_DEGRADED_RECOVERY is sent', () => {
    const history = given(scenario, escalate(degrade));

    expect(history.when(pass(end() + 1)).labels).toEqual(['ALERT_DEGRADED_RECOVERY']);
  });

  it('given a degraded alert was sent, when one run fails, then ALERT_FAILURE is sent immediately', () => {
    const history = given(scenario, escalate(degrade));

    const failed = history.when(fail(end() + 1));

    expect(failed.labels).toEqual(['ALERT_FAILURE']);
    expect(failed.state.status).toBe('failing');
  });

  it('given a failure alert was sent, when one run is degraded, then ALERT_DEGRADED is sent immediately', () => {
    const history = given(scenario, escalate(fail));

    const degraded = history.when(degrade(end() + 1));

    expect(degraded.labels).toEqual(['ALERT_DEGRADED']);
    expect(degraded.state.status).toBe('degraded');
  });

  it('given failing, then degraded, when the check passes, then ALERT_RECOVERY closes the failure receivers were told about', () => {
    const steps = [...escalate(fail), degrade(end() + 1), pass(end() + 2)];

    expect(emitted(scenario, steps)).toEqual(['ALERT_FAILURE', 'ALERT_DEGRADED', 'ALERT_RECOVERY']);
  });

  it('given degraded, then failing, when the check passes, then ALERT_RECOVERY is sent', () => {
    const steps = [...escalate(degrade), fail(end() + 1), pass(end() + 2)];

    expect(emitted(scenario, steps)).toEqual(['ALERT_DEGRADED', 'ALERT_FAILURE', 'ALERT_RECOVERY']);
  });

  it('given a check flapping between failing and degraded after an alert, when it keeps flapping, then every change is announced', () => {
    const steps = [...escalate(fail), degrade(end() + 1), fail(end() + 2), degrade(end() + 3)];

    expect(emitted(scenario, steps)).toEqual(['ALERT_FAILURE', 'ALERT_DEGRADED', 'ALERT_FAILURE', 'ALERT_DEGRADED']);
  });

  it('given a whole incident, when the check fails again after recovering, then the threshold applies afresh', () => {
    const first = [...escalate(fail), pass(end() + 1)];
    const second = escalate(fail, end() + 2);

    const perStep = replay(scenario, [...first, ...second]);

    expect(perStep.slice(first.length)).toEqual([...below.map(() => []), ['ALERT_FAILURE']]);
  });
});

describe.each(configs.filter((config) => config.below.length > 0))(
  'below the threshold, $name',
  ({ settings, below, reach }) => {
    const scenario = { settings };

    it('given failing runs below the threshold, when the check passes, then it returns to passing silently', () => {
      const steps = [...below.map((m) => fail(m)), pass(reach)];

      const history = given(scenario, steps);

      expect(history.historyLabels).toEqual([]);
      expect(history.state.status).toBe('passing');
    });

    it('given degraded runs below the threshold, when the check passes, then no ALERT_DEGRADED_RECOVERY is sent', () => {
      expect(emitted(scenario, [...below.map((m) => degrade(m)), pass(reach)])).toEqual([]);
    });

    it('given failing runs below the threshold, when a passing run interrupts them, then counting restarts', () => {
      const steps = [...below.map((m) => fail(m)), pass(reach), ...below.map((m) => fail(reach + 1 + m))];

      expect(emitted(scenario, steps)).toEqual([]);
    });

    it('given degraded runs below the threshold, when a run fails, then no ALERT_FAILURE: degraded runs are not failures', () => {
      const history = given(
        scenario,
        below.map((m) => degrade(m)),
      );

      expect(history.when(fail(reach)).labels).toEqual([]);
    });

    it('given degraded runs below the threshold, when a run fails, then it does not announce ALERT_DEGRADED either: only degraded runs do', () => {
      const history = given(
        scenario,
        below.map((m) => degrade(m)),
      );

      const failed = history.when(fail(reach));

      expect(failed.labels).toEqual([]);
      expect(failed.state.status).toBe('passing');
    });
  },
);

describe('RUN_BASED, threshold 3, mixed runs', () => {
  const scenario = { settings: runBased(3) };

  it('given a degraded and a failing run, when a third non-passing run is degraded, then ALERT_DEGRADED: failing runs count towards the degraded threshold', () => {
    expect(replay(scenario, [degrade(0), fail(1), degrade(2)])).toEqual([[], [], ['ALERT_DEGRADED']]);
  });

  it('given a check alternating failing and degraded, when it never passes, then it still escalates and then announces each change', () => {
    const steps = [fail(0), degrade(1), fail(2), degrade(3), fail(4)];

    expect(replay(scenario, steps)).toEqual([[], [], [], ['ALERT_DEGRADED'], ['ALERT_FAILURE']]);
  });

  it('given two failing runs, when a degraded run follows, then ALERT_DEGRADED (three runs in trouble) and the next failure is announced at once', () => {
    const steps = [fail(0), fail(1), degrade(2), fail(3), fail(4)];

    expect(replay(scenario, steps)).toEqual([[], [], ['ALERT_DEGRADED'], ['ALERT_FAILURE'], []]);
  });

  it('given two failing runs, when a degraded run interrupts them under a higher degraded count, then the failure count restarts', () => {
    const steps = [fail(0), fail(1), degrade(2), fail(3), fail(4)];

    expect(emitted({ settings: runBased(5) }, steps)).toEqual([]);
    expect(emitted({ settings: runBased(5) }, [...steps, fail(5), fail(6), fail(7)])).toEqual(['ALERT_FAILURE']);
  });

  it('given two failing runs and a threshold raised to 5, when a third fails, then nothing is sent yet: the settings of each result apply', () => {
    const history = given(scenario, [fail(0), fail(1)]);

    expect(history.when({ result: fail(2), settings: runBased(5) }).labels).toEqual([]);
    expect(history.when({ result: fail(2), settings: runBased(2) }).labels).toEqual(['ALERT_FAILURE']);
  });
});

describe('TIME_BASED escalation', () => {
  it('given a single failing run, when nothing else arrives, then no alert: a later run must confirm the time threshold', () => {
    expect(emitted({ settings: timeBased(5) }, [fail(0)])).toEqual([]);
  });

  it('given a failing run, when the next failing run is 4m59s later, then nothing; at 5m exactly, then ALERT_FAILURE', () => {
    const history = given({ settings: timeBased(5) }, [fail(0)]);

    expect(history.when(fail(4 + 59 / 60)).labels).toEqual([]);
    expect(history.when(fail(5)).labels).toEqual(['ALERT_FAILURE']);
  });

  it('given a check running every 10 minutes, when its second failing run arrives, then ALERT_FAILURE at once (10 ≥ 5 minutes)', () => {
    expect(replay({ settings: timeBased(5) }, [fail(0), fail(10)])).toEqual([[], ['ALERT_FAILURE']]);
  });

  it('given failing for 4 minutes, when a passing run interrupts, then the clock restarts at the next failure', () => {
    const steps = [fail(0), fail(4), pass(5), fail(6), fail(10), fail(11)];

    expect(replay({ settings: timeBased(5) }, steps)).toEqual([[], [], [], [], [], ['ALERT_FAILURE']]);
  });

  it('given 30 minutes, when the check fails for 29 minutes, then nothing; at 30, then ALERT_FAILURE', () => {
    const minutes = Array.from({ length: 31 }, (_, i) => i);

    const perStep = replay(
      { settings: timeBased(30) },
      minutes.map((m) => fail(m)),
    );

    expect(perStep.findIndex((labels) => labels.length > 0)).toBe(30);
  });

  it('given degraded for 3 minutes then failing, when degraded again at minute 5, then ALERT_DEGRADED measured from the first non-passing run', () => {
    const steps = [degrade(0), degrade(3), fail(4), degrade(5)];

    expect(replay({ settings: timeBased(5) }, steps)).toEqual([[], [], [], ['ALERT_DEGRADED']]);
  });
});
