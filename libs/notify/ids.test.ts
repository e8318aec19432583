import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seeded } from '#test-support';
import { deterministicId } from './ids.ts';

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
