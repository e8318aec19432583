import type { DeliveryOutcome } from './deliver.ts';

export interface RetryPolicy {
  /** Retries after the first attempt, so at most maxRetries + 1 attempts. */
  maxRetries: number;
  delayMs: number;
}

/** The spec's schedule: up to 5 retries, 20 seconds apart (100 seconds in all). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 5, delayMs: 20_000 };

export function maxAttempts(policy: RetryPolicy): number {
  return policy.maxRetries + 1;
}

/**
 * When to make the next attempt after attempt number `attempt` (1 is the first try) failed at
 * `now`, or null when the retries are used up.
 */
export function nextAttemptAt(attempt: number, policy: RetryPolicy, now: Date): Date | null {
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new RangeError(`attempt must be an integer from 1, got ${attempt}`);
  if (!Number.isInteger(policy.maxRetries) || policy.maxRetries < 0)
    throw new RangeError(`maxRetries must be an integer from 0, got ${policy.maxRetries}`);
  if (!(policy.delayMs >= 0)) throw new RangeError(`delayMs must be at least 0, got ${policy.delayMs}`);
  if (attempt >= maxAttempts(policy)) return null;
  return new Date(now.getTime() + policy.delayMs);
}

/**
 * Whether an outcome is worth another attempt: only a failure is. A refusal (a blocked address
 * or an unusable URL) would be refused again, and a delivered webhook is done.
 */
export function shouldRetry(outcome: DeliveryOutcome): boolean {
  return outcome === 'failed';
}
