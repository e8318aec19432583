import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ConfigError, InternalError } from './errors.ts';

const FORMAT = 'v1';

export interface SecretBox {
  /** AES-256-GCM; the output carries a version, the IV and the tag: "v1.<iv>.<tag>.<ciphertext>" in base64url. */
  encrypt(plaintext: string): string;
  decrypt(sealed: string): string;
}

/** Parses a 32-byte key given as 64 hex characters or as base64. */
export function parseEncryptionKey(value: string): Buffer {
  const key = /^[A-Fa-f0-9]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) throw new ConfigError('VIGIL_ENCRYPTION_KEY: expected 32 bytes (64 hex characters or base64)');
  return key;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new ConfigError('encryption key must be 32 bytes');
  return {
    encrypt(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [
        FORMAT,
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        body.toString('base64url'),
      ].join('.');
    },
    decrypt(sealed) {
      const [format, iv, tag, body] = sealed.split('.');
      if (format !== FORMAT || iv === undefined || tag === undefined || body === undefined) {
        throw new InternalError('sealed value has an unknown format');
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
      } catch (error) {
        throw new InternalError('sealed value could not be decrypted (wrong VIGIL_ENCRYPTION_KEY?)', { cause: error });
      }
    },
  };
}

export const API_KEY_PREFIX = 'vgl_';

/** A new API key: the prefix and 32 random bytes. Shown once; only its hash is kept. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function hmacSha256Hex(secret: string | Buffer, payload: string | Buffer): string {
  return createHmac('sha256', secret).update(payload).digest('hex');
}

/** Compares two strings in time that depends only on their length. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
