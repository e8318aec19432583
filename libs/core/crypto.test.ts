import { describe, expect, it } from 'vitest';
import { constantTimeEqual, createSecretBox, generateApiKey, parseEncryptionKey, sha256Hex } from './crypto.ts';
import { ConfigError, InternalError } from './errors.ts';

const key = parseEncryptionKey('00'.repeat(32));

describe('secret box', () => {
  it('round-trips and never contains the plaintext', () => {
    const box = createSecretBox(key);
    const sealed = box.encrypt('hunter2-secret-value');
    expect(sealed).not.toContain('hunter2');
    expect(box.decrypt(sealed)).toBe('hunter2-secret-value');
  });

  it('uses a fresh IV each time', () => {
    const box = createSecretBox(key);
    expect(box.encrypt('same')).not.toBe(box.encrypt('same'));
  });

  it('refuses a tampered value and a wrong key', () => {
    const box = createSecretBox(key);
    const sealed = box.encrypt('value');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.decrypt(parts.join('.'))).toThrow(InternalError);
    const other = createSecretBox(parseEncryptionKey('11'.repeat(32)));
    expect(() => other.decrypt(sealed)).toThrow(/VIGIL_ENCRYPTION_KEY/);
  });

  it('accepts hex and base64 keys and names the variable on a bad one', () => {
    expect(parseEncryptionKey(Buffer.alloc(32, 7).toString('base64'))).toHaveLength(32);
    expect(() => parseEncryptionKey('abcd')).toThrow(ConfigError);
    expect(() => parseEncryptionKey('abcd')).toThrow(/VIGIL_ENCRYPTION_KEY/);
  });
});

describe('api keys', () => {
  it('have the prefix and at least 32 random bytes', () => {
    const apiKey = generateApiKey();
    expect(apiKey.startsWith('vgl_')).toBe(true);
    expect(Buffer.from(apiKey.slice(4), 'base64url').length).toBeGreaterThanOrEqual(32);
    expect(generateApiKey()).not.toBe(apiKey);
  });

  it('hash with sha256 and compare in constant time', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });
});
