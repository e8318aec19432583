import { createHash, hash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sameDigest } from './auth.ts';

describe('platform key digests', () => {
  it('the one-shot hash is the digest the key was stored under, and only equal digests compare equal', () => {
    const key = 'vgl_admin_example';
    const stored = createHash('sha256').update(key).digest('hex');
    expect(hash('sha256', key)).toBe(stored);
    expect(sameDigest(hash('sha256', key), stored)).toBe(true);
    expect(sameDigest(hash('sha256', 'vgl_other'), stored)).toBe(false);
    // One character off at either end, a shorter digest, none at all.
    expect(sameDigest('0' + stored.slice(1), stored.replace(/^./, '1'))).toBe(false);
    expect(sameDigest(stored.slice(0, -1) + 'x', stored)).toBe(false);
    expect(sameDigest(stored.slice(0, 32), stored)).toBe(false);
    expect(sameDigest(stored, null)).toBe(false);
  });
});
