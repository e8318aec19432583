import { createHmac } from 'node:crypto';
import { ValidationError, hmacSha256Hex } from '#core';

/** A secret with this prefix is a Standard Webhooks secret: base64 key material follows it. */
export const STANDARD_WEBHOOKS_PREFIX = 'whsec_';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;

export interface SignatureInput {
  /** The exact bytes sent. */
  body: string | Buffer;
  secret?: string | null;
  /** The delivery id; the same on every retry. */
  deliveryId: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
}

/** Why a webhook secret cannot be used, or undefined when it can. For the control plane to refuse it when saved. */
export function webhookSecretProblem(secret: string): string | undefined {
  if (secret.length === 0) return 'must not be empty';
  if (!secret.startsWith(STANDARD_WEBHOOKS_PREFIX)) return undefined;
  const encoded = secret.slice(STANDARD_WEBHOOKS_PREFIX.length);
  if (encoded.length === 0 || !BASE64.test(encoded)) return 'a whsec_ secret must be base64 after the prefix';
  return undefined;
}

/** The HMAC key of a Standard Webhooks secret: the base64-decoded part after "whsec_". */
export function standardWebhooksKey(secret: string): Buffer {
  const problem = webhookSecretProblem(secret);
  if (problem || !secret.startsWith(STANDARD_WEBHOOKS_PREFIX)) {
    throw new ValidationError(`webhookSecret: ${problem ?? 'not a whsec_ secret'}`);
  }
  return Buffer.from(secret.slice(STANDARD_WEBHOOKS_PREFIX.length), 'base64');
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, as the Standard Webhooks spec defines it. */
export function standardWebhooksSignature(
  secret: string,
  deliveryId: string,
  timestamp: number,
  body: string | Buffer,
): string {
  const mac = createHmac('sha256', standardWebhooksKey(secret));
  mac.update(`${deliveryId}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

/**
 * The signature headers for one attempt. With a secret: `x-service-signature`, the hex HMAC of
 * the body keyed with the whole secret. With a whsec_ secret, also the Standard Webhooks headers.
 * Without a secret: none.
 */
export function signatureHeaders(input: SignatureInput): Record<string, string> {
  const { body, secret, deliveryId, timestamp } = input;
  if (!secret) return {};
  const headers: Record<string, string> = { 'x-service-signature': hmacSha256Hex(secret, body) };
  if (secret.startsWith(STANDARD_WEBHOOKS_PREFIX)) {
    headers['webhook-id'] = deliveryId;
    headers['webhook-timestamp'] = String(timestamp);
    headers['webhook-signature'] = standardWebhooksSignature(secret, deliveryId, timestamp, body);
  }
  return headers;
}
