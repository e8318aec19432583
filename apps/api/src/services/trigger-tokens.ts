import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { NotFoundError } from '#core';
import type { RateLimiter } from '../plugins/rate-limit.ts';

/** A trigger URL's secret: 192 random bits, URL-safe. */
export function newTriggerToken(): string {
  return randomBytes(24).toString('base64url');
}

const digest = (value: string) => createHash('sha256').update(value).digest();
/** Compared as digests, so the time taken depends neither on where they differ nor on their lengths. */
const DUMMY = digest('no trigger');

/**
 * The gate of every trigger URL (a check's or a group's): the token must be the trigger's, else the
 * same 404 whatever was wrong, so the URL reveals nothing but whether it is whole; then the
 * trigger's own rate limit. Returns the trigger that matched.
 */
export async function admitTriggerCall<T extends { id: string; token: string }>(
  trigger: T | undefined,
  token: string,
  rateLimiter: RateLimiter,
  perMinute: number,
): Promise<T> {
  const matches = timingSafeEqual(digest(token), trigger ? digest(trigger.token) : DUMMY);
  if (!trigger || !matches) throw new NotFoundError('Unknown trigger');
  await rateLimiter(`trigger-${trigger.id}`, { bucket: 'trigger', limit: perMinute, windowSeconds: 60 });
  return trigger;
}
