import { hash } from 'node:crypto';

/**
 * A UUID of the given version: its first 48 bits `head` (12 hex digits), the rest from `hex`, a
 * SHA-256 of the parts, with the RFC 9562 variant bits.
 */
function uuidOf(head: string, version: '5' | '8', hex: string): string {
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${head.slice(0, 8)}-${head.slice(8, 12)}-${version}${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** One-shot hash: a third of createHash's cost (no Hash object), the same digest. */
const digest = (parts: string[]) => hash('sha256', parts.join('\u0000'), 'hex');

/** A UUID-shaped id derived from its parts, so a redelivered alert maps to the same delivery. */
export function deterministicId(...parts: string[]): string {
  const hex = digest(parts);
  return uuidOf(hex, '5', hex);
}

/** The largest time a UUID's 48-bit time field holds (year 10889). */
const MAX_MS = 2 ** 48 - 1;

/**
 * A delivery's id: UUID-shaped (version 8), its first 48 bits the alert's time in ms as in a
 * version 7 UUID, the rest from the hash of the alert and the channel, so a redelivered alert
 * still maps to the same delivery. The time comes from what fixes the alert id (the result's
 * start, or the outage's last poll), never from when an alert was decided or handled, which a
 * replay changes. Ids in time order put each new delivery's key at the end of the store's key
 * index, where random ids put each on a page of its own: on SQLite a group commit of 500 then
 * costs 13 µs a delivery where it cost 20–24, and growing with the index (record-shape.ts).
 */
export function orderedId(ms: number, ...parts: string[]): string {
  const time = Math.min(MAX_MS, Math.max(0, Math.trunc(Number.isFinite(ms) ? ms : 0)))
    .toString(16)
    .padStart(12, '0');
  return uuidOf(time, '8', digest(parts));
}

/** Whether an id is one orderedId made (deterministicId's are version 5). */
export function isOrderedId(id: string): boolean {
  return id.length === 36 && id.charCodeAt(14) === 56; // '8'
}

/** Runs work over items with at most `limit` in flight. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(workers);
}
