import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import { given } from '../testing.ts';
import { accountDecider, type AccountEvent } from './account.ts';
import { alertSettingsSchema, defaultAlertSettings } from './alert-settings.ts';

const now = '2025-01-02T03:04:05.000Z';
const later = '2025-01-03T00:00:00.000Z';
const base = { now, actor: 'user-1' };

const created: AccountEvent = {
  type: 'AccountCreated',
  data: {
    accountId: 'acc-1',
    name: 'Acme',
    plan: 'team',
    runtimeId: null,
    settings: {},
    alertSettings: defaultAlertSettings,
    createdAt: now,
  },
};

describe('account', () => {
  it('creates an account with default settings and alert settings', () => {
    const state = given(accountDecider)
      .when({ ...base, type: 'CreateAccount', accountId: 'acc-1', name: 'Acme', plan: 'team' })
      .thenEvents([created]);
    expect(state).toEqual({ status: 'active', ...created.data, updatedAt: now });
  });

  it('keeps given runtime, settings and completes partial alert settings', () => {
    const [event] = given(accountDecider)
      .when({
        ...base,
        type: 'CreateAccount',
        accountId: 'acc-1',
        name: 'Acme',
        plan: 'enterprise',
        runtimeId: '2024.09',
        settings: { timezone: 'UTC' },
        alertSettings: { escalationType: 'TIME_BASED', reminders: { amount: 2 } },
      })
      .events();
    expect(event?.type === 'AccountCreated' && event.data).toMatchObject({
      runtimeId: '2024.09',
      settings: { timezone: 'UTC' },
      alertSettings: {
        escalationType: 'TIME_BASED',
        runBasedEscalation: { failedRunThreshold: 1 },
        timeBasedEscalation: { minutesFailingThreshold: 5 },
        reminders: { amount: 2, interval: 5 },
      },
    });
  });

  it('refuses to create an account twice', () => {
    given(accountDecider, [created])
      .when({ ...base, type: 'CreateAccount', accountId: 'acc-1', name: 'Again', plan: 'hobby' })
      .thenError(ConflictError, /already exists/);
  });

  it('refuses an unknown plan and an empty name, naming the field', () => {
    const when = given(accountDecider).when;
    when({ ...base, type: 'CreateAccount', accountId: 'a', name: 'A', plan: 'gold' as 'team' }).thenError(
      ValidationError,
      /^plan/,
    );
    when({ ...base, type: 'CreateAccount', accountId: 'a', name: '  ', plan: 'team' }).thenError(
      ValidationError,
      /^name/,
    );
  });

  it('updates only the fields given', () => {
    const state = given(accountDecider, [created])
      .when({ ...base, now: later, type: 'UpdateAccount', accountId: 'acc-1', name: 'Acme Inc', runtimeId: '2025.04' })
      .thenEvents([{ type: 'AccountUpdated', data: { name: 'Acme Inc', runtimeId: '2025.04', updatedAt: later } }]);
    expect(state).toMatchObject({
      name: 'Acme Inc',
      runtimeId: '2025.04',
      plan: 'team',
      createdAt: now,
      updatedAt: later,
    });
  });

  it('replaces alert settings on update', () => {
    const alertSettings = alertSettingsSchema.parse({
      escalationType: 'TIME_BASED',
      timeBasedEscalation: { minutesFailingThreshold: 30 },
    });
    const state = given(accountDecider, [created])
      .when({ ...base, type: 'UpdateAccount', accountId: 'acc-1', alertSettings })
      .thenEvents([{ type: 'AccountUpdated', data: { alertSettings, updatedAt: now } }]);
    expect(state.status === 'active' && state.alertSettings.timeBasedEscalation.minutesFailingThreshold).toBe(30);
  });

  it('refuses to update an account that does not exist', () => {
    given(accountDecider)
      .when({ ...base, type: 'UpdateAccount', accountId: 'acc-9', name: 'X' })
      .thenError(NotFoundError);
  });

  it('refuses alert settings out of range, naming the nested field', () => {
    const when = given(accountDecider, [created]).when;
    const update = (alertSettings: unknown) =>
      when({ ...base, type: 'UpdateAccount', accountId: 'acc-1', alertSettings: alertSettings as never });
    update({ runBasedEscalation: { failedRunThreshold: 6 } }).thenError(
      ValidationError,
      /^alertSettings\.runBasedEscalation\.failedRunThreshold/,
    );
    update({ timeBasedEscalation: { minutesFailingThreshold: 7 } }).thenError(
      ValidationError,
      /minutesFailingThreshold/,
    );
    update({ reminders: { amount: 6 } }).thenError(ValidationError, /reminders\.amount/);
    update({ reminders: { interval: 6 } }).thenError(ValidationError, /reminders\.interval/);
    update({ escalationType: 'SOMETIMES' }).thenError(ValidationError, /escalationType/);
  });
});

describe('alertSettingsSchema', () => {
  it('completes an empty object to the defaults', () => {
    expect(alertSettingsSchema.parse({})).toEqual(defaultAlertSettings);
    expect(defaultAlertSettings).toEqual({
      escalationType: 'RUN_BASED',
      runBasedEscalation: { failedRunThreshold: 1 },
      timeBasedEscalation: { minutesFailingThreshold: 5 },
      reminders: { amount: 0, interval: 5 },
    });
  });
});
