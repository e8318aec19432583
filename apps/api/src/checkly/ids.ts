import { createHash } from 'node:crypto';
import { NotFoundError, ValidationError } from '#core';

/**
 * Checkly's clients read group, alert channel and maintenance window ids as integers. Each such
 * Vigil resource gets one derived from its UUID, which its creation event carries: a function of
 * the event log, so a rebuild of the read models gives the same number, and nothing extra is
 * stored. 52 bits of SHA-256 (exact in a JS number and a Go int64): two resources of one account
 * share a number with odds of about n²/2⁵³, and the look-up refuses such a pair rather than guess.
 */
export function numericId(vigilId: string): number {
  const digest = createHash('sha256').update(vigilId.toLowerCase()).digest();
  // The top 52 of the first 64 bits; never 0.
  return Number(digest.readBigUInt64BE(0) >> 12n) || 1;
}

/** A path or body id as a positive integer, or a 404 / 400 naming where it came from. */
export function parseNumericId(raw: string | number, what: string, field?: string): number {
  const value = typeof raw === 'number' ? raw : /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (Number.isSafeInteger(value) && value > 0) return value;
  if (field) throw new ValidationError(`${field}: must be the numeric id of ${what}`);
  throw new NotFoundError(`${what} ${raw} not found`);
}

/** The Vigil id among the account's own resources whose numeric id this is; null when none. */
export function findByNumericId<T>(items: T[], idOf: (item: T) => string, wanted: number): T | null {
  const found = items.filter((item) => numericId(idOf(item)) === wanted);
  if (found.length > 1)
    throw new ValidationError(`id ${wanted} names ${found.length} resources of this account; use the Vigil API (/v1)`);
  return found[0] ?? null;
}
