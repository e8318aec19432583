import { describe, expect, it } from 'vitest';
import { InternalError } from '#core';
import {
  alertEventJsonSchema,
  alertEventSchema,
  buildAlertEvent,
  parseAlertEvent,
  type AlertEvent,
} from './alert-event.ts';
import type { AlertDecision } from './decision.ts';
import { initialAlertState } from './state.ts';
import { evolveAlertState } from './state-machine.ts';
import { ACCOUNT_ID, CHECK_ID, active, fail, given, pass, runBased } from './testing.ts';

const NOW = new Date('2025-03-04T10:00:02.500Z');

function decide(...results: ReturnType<typeof fail>[]): AlertDecision[] {
  let state = initialAlertState();
  return results.flatMap((result) => {
    const next = evolveAlertState(state, { result, settings: runBased(1, { amount: 1, interval: 1 }), check: active });
    state = next.state;
    return next.alerts;
  });
}

describe('alert-events.v1', () => {
  it('given an ALERT_FAILURE decision, when the event is built, then it carries the decision and the result fields, with nulls for what is absent', () => {
    const result = fail(0, { errorMessage: 'connect ECONNREFUSED', responseTime: 87.5 });
    const [decision] = decide(result);

    const event = buildAlertEvent(decision!, result, NOW);

    expect(event).toEqual({
      alertId: decision!.alertId,
      accountId: ACCOUNT_ID,
      checkId: CHECK_ID,
      checkType: 'API',
      alertType: 'ALERT_FAILURE',
      isReminder: false,
      reminderSequence: 0,
      resultId: result.id,
      startedAt: result.startedAt,
      runLocation: 'eu-west-1',
      responseTime: 87.5,
      errorMessage: 'connect ECONNREFUSED',
      statusCode: 503,
      statusText: 'Service Unavailable',
      ssl: null,
      occurredAt: '2025-03-04T10:00:02.500Z',
    } satisfies AlertEvent);
  });

  it('given a recovery of a browser check, when built, then error, status code and text are null', () => {
    const failed = fail(0, { checkType: 'BROWSER', statusCode: undefined, statusText: undefined });
    const recovered = pass(1, { checkType: 'BROWSER' });
    const [, recovery] = decide(failed, recovered);

    const event = buildAlertEvent(recovery!, recovered, NOW);

    expect(event).toMatchObject({
      alertType: 'ALERT_RECOVERY',
      checkType: 'BROWSER',
      errorMessage: null,
      statusCode: null,
      statusText: null,
      ssl: null,
    });
  });

  it('given a failing result that carries a certificate, when its ALERT_FAILURE is built, then ssl stays null: SSL fields belong to ALERT_SSL', () => {
    const result = fail(0, { ssl: { daysRemaining: 3, domain: 'example.com' } });
    const [failure, ssl] = decide(result);

    expect(buildAlertEvent(failure!, result, NOW).ssl).toBeNull();
    expect(buildAlertEvent(ssl!, result, NOW)).toMatchObject({
      alertType: 'ALERT_SSL',
      ssl: { daysRemaining: 3, domain: 'example.com' },
    });
  });

  it('given a reminder decision, when built, then isReminder and reminderSequence are carried', () => {
    const second = fail(1);
    const [, reminder] = decide(fail(0), second);

    expect(buildAlertEvent(reminder!, second, NOW)).toMatchObject({
      alertType: 'ALERT_FAILURE',
      isReminder: true,
      reminderSequence: 1,
    });
  });

  it('given no time, when built, then occurredAt is now', () => {
    const result = fail(0);
    const before = Date.now();

    const event = buildAlertEvent(decide(result)[0]!, result);

    expect(Date.parse(event.occurredAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(event.occurredAt)).toBeLessThanOrEqual(Date.now());
  });

  it('given a decision and another result, when built, then it refuses: the event would describe the wrong run', () => {
    const [decision] = decide(fail(0));

    expect(() => buildAlertEvent(decision!, fail(5), NOW)).toThrow(InternalError);
  });

  it('given a built event, when it goes through JSON and parseAlertEvent, then it comes back equal', () => {
    const result = pass(0, { ssl: { daysRemaining: 10, domain: 'example.com' } });
    const event = buildAlertEvent(given({ settings: runBased(1) }).when(result).alerts[0]!, result, NOW);

    expect(parseAlertEvent(JSON.parse(JSON.stringify(event)))).toEqual({ ok: true, value: event });
  });

  describe('parseAlertEvent refuses', () => {
    const result = fail(0);
    const valid = buildAlertEvent(decide(result)[0]!, result, NOW);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['an unknown field', { ...valid, extra: 1 }, /extra/],
      ['an unknown alert type', { ...valid, alertType: 'ALERT_PANIC' }, /^alertType: /],
      ['a reminder with sequence 0', { ...valid, isReminder: true }, /^reminderSequence: /],
      ['a sequence on a non-reminder', { ...valid, reminderSequence: 2 }, /^reminderSequence: /],
      [
        'a reminder of a recovery',
        { ...valid, alertType: 'ALERT_RECOVERY', isReminder: true, reminderSequence: 1 },
        /^isReminder: /,
      ],
      ['ssl on a failure', { ...valid, ssl: { daysRemaining: 3, domain: 'example.com' } }, /^ssl: /],
      ['an ALERT_SSL without ssl', { ...valid, alertType: 'ALERT_SSL' }, /^ssl: /],
      ['a missing field', { ...valid, resultId: undefined }, /^resultId: /],
      ['a non-ISO time', { ...valid, occurredAt: 'yesterday' }, /^occurredAt: /],
    ];

    it.each(cases)('%s', (_name, input, message) => {
      const parsed = parseAlertEvent(input);

      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.message).toMatch(message);
    });
  });

  it('given the schema, when exported as JSON Schema, then every field is listed and required', () => {
    const json = alertEventJsonSchema();

    expect(json.type).toBe('object');
    expect(Object.keys(json.properties as object).sort()).toEqual(Object.keys(alertEventSchema.shape).sort());
    expect((json.required as string[]).sort()).toEqual(Object.keys(alertEventSchema.shape).sort());
    expect(json.additionalProperties).toBe(false);
  });
});
