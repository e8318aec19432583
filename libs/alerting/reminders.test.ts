import { describe, expect, it } from 'vitest';
import { degrade, emitted, fail, given, pass, range, replay, runBased, series, timeBased } from './testing.ts';

describe('reminders', () => {
  it('given 2 reminders every 5 minutes, when the check fails every minute for 20 minutes, then reminders #1 and #2 go out 5 and 10 minutes after the alert', () => {
    const perStep = replay({ settings: runBased(1, { amount: 2, interval: 5 }) }, series(fail, range(0, 21)));

    const sent = perStep.flatMap((labels, minute) => labels.map((label) => `${minute}:${label}`));
    expect(sent).toEqual(['0:ALERT_FAILURE', '5:ALERT_FAILURE#1', '10:ALERT_FAILURE#2']);
  });

  it('given reminders, when each is decided, then it is an ALERT_FAILURE flagged isReminder with a 1-based sequence and its own alert id', () => {
    const history = given({ settings: runBased(1, { amount: 3, interval: 1 }) }, [fail(0), fail(1)]);

    const second = history.when(fail(2)).alerts;

    expect(second).toEqual([
      expect.objectContaining({ alertType: 'ALERT_FAILURE', isReminder: true, reminderSequence: 2 }),
    ]);
    const first = given({ settings: runBased(1, { amount: 3, interval: 1 }) }, [fail(0)]).when(fail(1)).alerts;
    expect(first[0]?.reminderSequence).toBe(1);
    expect(first[0]?.alertId).not.toBe(second[0]?.alertId);
  });

  it('given the alert itself, when it is decided, then it is not a reminder and has sequence 0', () => {
    const [alert] = given({ settings: runBased(1, { amount: 2, interval: 5 }) }).when(fail(0)).alerts;

    expect(alert).toMatchObject({ alertType: 'ALERT_FAILURE', isReminder: false, reminderSequence: 0 });
  });

  it('given amount 0, when the check keeps failing for an hour, then only the alert goes out', () => {
    expect(emitted({ settings: runBased(1, { amount: 0, interval: 1 }) }, series(fail, range(0, 61)))).toEqual([
      'ALERT_FAILURE',
    ]);
  });

  it('given amount 5 every minute, when the check keeps failing, then exactly 5 reminders, numbered 1 to 5', () => {
    const labels = emitted({ settings: runBased(1, { amount: 5, interval: 1 }) }, series(fail, range(0, 30)));

    expect(labels).toEqual([
      'ALERT_FAILURE',
      'ALERT_FAILURE#1',
      'ALERT_FAILURE#2',
      'ALERT_FAILURE#3',
      'ALERT_FAILURE#4',
      'ALERT_FAILURE#5',
    ]);
  });

  it('given irregular runs, when they arrive, then each interval is measured from the previous reminder, by result time', () => {
    const perStep = replay({ settings: runBased(1, { amount: 3, interval: 5 }) }, series(fail, [0, 4, 7, 11, 12, 30]));

    expect(perStep).toEqual([['ALERT_FAILURE'], [], ['ALERT_FAILURE#1'], [], ['ALERT_FAILURE#2'], ['ALERT_FAILURE#3']]);
  });

  it('given a reminder is due, when the check recovers instead, then ALERT_RECOVERY and no more reminders', () => {
    const steps = [...series(fail, range(0, 6)), pass(6), pass(11)];

    expect(emitted({ settings: runBased(1, { amount: 5, interval: 5 }) }, steps)).toEqual([
      'ALERT_FAILURE',
      'ALERT_FAILURE#1',
      'ALERT_RECOVERY',
    ]);
  });

  it('given all reminders were sent in one incident, when a new incident starts after recovery, then its reminders start at #1 again', () => {
    const settings = runBased(1, { amount: 1, interval: 1 });
    const steps = [fail(0), fail(1), fail(2), pass(3), fail(4), fail(5)];

    expect(replay({ settings }, steps)).toEqual([
      ['ALERT_FAILURE'],
      ['ALERT_FAILURE#1'],
      [],
      ['ALERT_RECOVERY'],
      ['ALERT_FAILURE'],
      ['ALERT_FAILURE#1'],
    ]);
  });

  it('given a failing check, when a degraded run comes, then reminders stop: the check is no longer failing', () => {
    const steps = [fail(0), degrade(1), degrade(6), degrade(11)];

    expect(emitted({ settings: runBased(1, { amount: 5, interval: 5 }) }, steps)).toEqual([
      'ALERT_FAILURE',
      'ALERT_DEGRADED',
    ]);
  });

  it('given failing → degraded → failing, when the check keeps failing, then the new ALERT_FAILURE starts a new reminder sequence', () => {
    const steps = [fail(0), fail(5), degrade(6), fail(7), fail(12)];

    expect(replay({ settings: runBased(1, { amount: 2, interval: 5 }) }, steps)).toEqual([
      ['ALERT_FAILURE'],
      ['ALERT_FAILURE#1'],
      ['ALERT_DEGRADED'],
      ['ALERT_FAILURE'],
      ['ALERT_FAILURE#1'],
    ]);
  });

  it('given a degraded check, when it stays degraded, then no reminders: reminders are for failures', () => {
    const labels = emitted({ settings: runBased(1, { amount: 5, interval: 1 }) }, series(degrade, range(0, 10)));

    expect(labels).toEqual(['ALERT_DEGRADED']);
  });

  it('given TIME_BASED escalation, when the check keeps failing, then reminders count from the ALERT_FAILURE, not from the first failure', () => {
    const perStep = replay({ settings: timeBased(5, { amount: 1, interval: 5 }) }, series(fail, range(0, 11)));

    expect(perStep[5]).toEqual(['ALERT_FAILURE']);
    expect(perStep[10]).toEqual(['ALERT_FAILURE#1']);
    expect(perStep.flat()).toHaveLength(2);
  });

  it('given 2 reminders sent, when the amount is lowered to 1, then no more are sent', () => {
    const settings = runBased(1, { amount: 3, interval: 1 });
    const history = given({ settings }, [fail(0), fail(1), fail(2)]);

    expect(history.historyLabels).toEqual(['ALERT_FAILURE', 'ALERT_FAILURE#1', 'ALERT_FAILURE#2']);
    expect(history.when({ result: fail(3), settings: runBased(1, { amount: 1, interval: 1 }) }).labels).toEqual([]);
    expect(history.when(fail(3)).labels).toEqual(['ALERT_FAILURE#3']);
  });
});
