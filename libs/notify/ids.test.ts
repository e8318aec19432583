import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seeded } from '#test-support';
import { z } from 'zod';
import { deterministicId, isOrderedId, orderedId } from './ids.ts';

/** The id as it was first computed (createHash): a replay after an upgrade must find the same delivery. */
function reference(...parts: string[]): string {
  const hex = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

describe('deterministicId', () => {
  it('keeps the ids deliveries were stored under', () => {
    expect(deterministicId('alert-1', 'channel-1')).toBe('4313bad2-3081-5d07-ac38-774b3905654e');
    expect(deterministicId('ä€𝄞', '')).toBe('70a670fe-4709-5ce9-94e1-f9141df42197');
  });

  it('equals the createHash reference for random parts, non-ASCII included', () => {
    const next = seeded(26);
    const alphabet = ['a', '-', '0', '9', 'é', '€', '\u0000', '𝄞', ' '];
    const part = () =>
      Array.from({ length: Math.floor(next() * 40) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
    for (let i = 0; i < 500; i++) {
      const parts = Array.from({ length: 1 + Math.floor(next() * 3) }, part);
      expect(deterministicId(...parts)).toBe(reference(...parts));
    }
  });
});

describe('orderedId', () => {
  it('is a version 8 UUID whose first 48 bits are the time, and the same for the same parts', () => {
    const id = orderedId(Date.UTC(2026, 10, 29, 9, 0, 0, 123), 'alert-1', 'channel-1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(z.uuid().safeParse(id).success).toBe(true);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(Date.UTC(2026, 10, 29, 9, 0, 0, 123));
    expect(orderedId(Date.UTC(2026, 10, 29, 9, 0, 0, 123), 'alert-1', 'channel-1')).toBe(id);
    // The hash part is deterministicId's: the same parts give the same tail.
    expect(id.slice(15)).toBe(deterministicId('alert-1', 'channel-1').slice(15));
    expect(isOrderedId(id)).toBe(true);
    expect(isOrderedId(deterministicId('alert-1', 'channel-1'))).toBe(false);
  });

  it('sorts as its times do, and differs for other parts at the same time', () => {
    const next = seeded(29);
    const times = Array.from({ length: 2_000 }, () => Math.floor(next() * 2 ** 47));
    const ids = times.map((ms, i) => ({ ms, id: orderedId(ms, `alert-${i}`, 'channel') }));
    const byId = [...ids].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    expect(byId.map((entry) => entry.ms)).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(ids.map((entry) => entry.id)).size).toBe(ids.length);
    expect(orderedId(5, 'a', 'b')).not.toBe(orderedId(5, 'a', 'c'));
  });

  it('keeps a time outside 48 bits (or not a number) to the field', () => {
    expect(orderedId(-1, 'a').slice(0, 13)).toBe('00000000-0000');
    expect(orderedId(Number.NaN, 'a').slice(0, 13)).toBe('00000000-0000');
    expect(orderedId(2 ** 60, 'a').slice(0, 13)).toBe('ffffffff-ffff');
  });
});
