import { describe, expect, it } from 'vitest';
import type { DeliveryResult } from '#webhooks';
import { attemptRecord } from './attempt-record.ts';
import type { Delivery } from './store.ts';

const delivery = (over: Partial<Delivery> = {}): Delivery =>
  ({
    id: 'd1',
    channelId: 'c1',
    accountId: 'a1',
    checkId: 'k1',
    alertType: 'ALERT_FAILURE',
    alert: {} as Delivery['alert'],
    test: false,
    attempts: 0,
    status: 'pending',
    nextAttemptAt: 1,
    createdAt: 1,
    updatedAt: 1,
    lastError: null,
    ...over,
  }) as Delivery;
const result = (outcome: DeliveryResult['outcome'], over: Partial<DeliveryResult> = {}): DeliveryResult => ({
  outcome,
  durationMs: 3,
  responseBody: 'body',
  requestHeaders: {},
  ...over,
});
const retry = { maxRetries: 2, delayMs: 1000 };
const started = new Date('2026-11-27T10:00:00.000Z');
const finished = started.getTime() + 5;

describe('attemptRecord', () => {
  it('a delivered attempt ends the delivery and schedules nothing', () => {
    const { next, attempt } = attemptRecord(
      delivery(),
      result('delivered', { statusCode: 200 }),
      started,
      finished,
      retry,
    );
    expect(next).toMatchObject({ status: 'delivered', attempts: 1, nextAttemptAt: null, updatedAt: finished });
    expect(attempt).toMatchObject({ attempt: 1, outcome: 'delivered', statusCode: 200, nextAttemptAt: null });
    expect(attempt.at).toBe(started.toISOString());
  });

  it('a failure schedules the next attempt after the delay, until the retries are used up', () => {
    const failed = result('failed', { statusCode: 500, error: 'receiver answered 500' });
    const first = attemptRecord(delivery(), failed, started, finished, retry);
    expect(first.next).toMatchObject({ status: 'pending', attempts: 1, nextAttemptAt: finished + 1000 });
    expect(first.next.lastError).toBe('receiver answered 500');
    expect(first.attempt.nextAttemptAt).toBe(new Date(finished + 1000).toISOString());
    const last = attemptRecord(delivery({ attempts: 2 }), failed, started, finished, retry);
    expect(last.next).toMatchObject({ status: 'failed', attempts: 3, nextAttemptAt: null });
    expect(last.attempt.nextAttemptAt).toBeNull();
  });

  it('a refusal is never retried, and neither is a test send', () => {
    expect(attemptRecord(delivery(), result('refused', { error: 'x' }), started, finished, retry).next).toMatchObject({
      status: 'refused',
      nextAttemptAt: null,
    });
    const test = attemptRecord(delivery({ test: true }), result('failed'), started, finished, retry);
    expect(test.next).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(test.attempt.test).toBe(true);
  });
});
