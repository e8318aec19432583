import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import { defaultAlertSettings } from '#domain';
import { escalationReached, reminderDue, resolveAlertSettings } from './settings.ts';
import { at, runBased, settings, timeBased } from './testing.ts';

describe('resolveAlertSettings', () => {
  const account = settings({
    escalationType: 'TIME_BASED',
    timeBasedEscalation: { minutesFailingThreshold: 15 },
    reminders: { amount: 2, interval: 10 },
  });
  const own = settings({ escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 4 } });

  it('given a check with its own settings, when resolved, then they replace the account settings', () => {
    expect(resolveAlertSettings(account, own)).toEqual(own);
  });

  it('given a check with its own settings, when resolved, then nothing of the account leaks in: the override is whole, not merged', () => {
    expect(resolveAlertSettings(account, own).reminders).toEqual({ amount: 0, interval: 5 });
  });

  it('given a check without settings, when resolved, then the account settings apply', () => {
    expect(resolveAlertSettings(account, null)).toEqual(account);
    expect(resolveAlertSettings(account, undefined)).toEqual(account);
  });

  it('given neither, when resolved, then the defaults apply', () => {
    expect(resolveAlertSettings(null, null)).toEqual(defaultAlertSettings);
    expect(resolveAlertSettings(undefined, undefined)).toEqual(defaultAlertSettings);
  });

  it('given partial stored settings, when resolved, then the missing fields get their defaults', () => {
    expect(resolveAlertSettings({ reminders: { amount: 3 } }, null)).toEqual({
      ...defaultAlertSettings,
      reminders: { amount: 3, interval: 5 },
    });
  });

  it('given invalid stored settings, when resolved, then ValidationError names the field', () => {
    expect(() => resolveAlertSettings(null, { runBasedEscalation: { failedRunThreshold: 9 } })).toThrow(
      ValidationError,
    );
    expect(() => resolveAlertSettings(null, { runBasedEscalation: { failedRunThreshold: 9 } })).toThrow(
      /runBasedEscalation\.failedRunThreshold/,
    );
  });
});

describe('escalationReached', () => {
  it('given no streak, when asked, then false', () => {
    expect(escalationReached(null, runBased(1), at(0))).toBe(false);
  });

  it('given RUN_BASED 3, when the streak has 2 then 3 runs, then false then true', () => {
    expect(escalationReached({ count: 2, since: at(0) }, runBased(3), at(5))).toBe(false);
    expect(escalationReached({ count: 3, since: at(0) }, runBased(3), at(2))).toBe(true);
  });

  it('given TIME_BASED 10, when 9 then 10 minutes have passed, then false then true, whatever the count', () => {
    expect(escalationReached({ count: 50, since: at(0) }, timeBased(10), at(9))).toBe(false);
    expect(escalationReached({ count: 2, since: at(0) }, timeBased(10), at(10))).toBe(true);
  });
});

describe('reminderDue', () => {
  const everyFive = runBased(1, { amount: 2, interval: 5 });

  it('given no reminder schedule, when asked, then none is due', () => {
    expect(reminderDue(null, everyFive, at(60))).toBeNull();
  });

  it('given the last alert 4 then 5 minutes ago, when asked, then none, then reminder #1', () => {
    expect(reminderDue({ sent: 0, lastAt: at(0) }, everyFive, at(4))).toBeNull();
    expect(reminderDue({ sent: 0, lastAt: at(0) }, everyFive, at(5))).toBe(1);
  });

  it('given all reminders sent, when asked long after, then none', () => {
    expect(reminderDue({ sent: 2, lastAt: at(0) }, everyFive, at(600))).toBeNull();
  });
});
