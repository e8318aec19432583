import { nextAttemptAt, type DeliveryResult, type RetryPolicy } from '#webhooks';
import type { Attempt, Delivery } from './store.ts';

/**
 * What one attempt leaves behind: the delivery's next state (delivered, refused, pending with its
 * next attempt's time, or failed for good once the retries are used up) and the attempt's record.
 * Pure, so the fresh path, the retry loop and a test send all record an attempt the same way.
 */
export function attemptRecord(
  delivery: Delivery,
  result: DeliveryResult,
  started: Date,
  finished: number,
  retry: RetryPolicy,
): { next: Delivery; attempt: Attempt } {
  const number = delivery.attempts + 1;
  const retryAt =
    result.outcome === 'failed' && !delivery.test ? nextAttemptAt(number, retry, new Date(finished)) : null;
  const status =
    result.outcome === 'delivered'
      ? 'delivered'
      : result.outcome === 'refused'
        ? 'refused'
        : retryAt
          ? 'pending'
          : 'failed';
  const next: Delivery = {
    ...delivery,
    attempts: number,
    status,
    nextAttemptAt: retryAt?.getTime() ?? null,
    updatedAt: finished,
    lastError: result.error ?? null,
  };
  const attempt: Attempt = {
    deliveryId: delivery.id,
    channelId: delivery.channelId,
    checkId: delivery.checkId,
    alertType: delivery.alertType,
    attempt: number,
    at: started.toISOString(),
    durationMs: result.durationMs,
    outcome: result.outcome,
    statusCode: result.statusCode ?? null,
    error: result.error ?? null,
    responseBody: result.responseBody,
    test: delivery.test,
    nextAttemptAt: retryAt?.toISOString() ?? null,
  };
  return { next, attempt };
}
