import { createHash } from 'node:crypto';
import type { AlertType } from './decision.ts';

/**
 * Namespace of Vigil's alert ids. Fixed forever: changing it would give a replayed result a new
 * alert id, and the dispatcher would deliver the alert a second time.
 */
export const ALERT_ID_NAMESPACE = '9f3a6c1e-52b4-4d0a-8e7f-3c1d2b5a6e90';

/** RFC 9562 UUID version 5 (SHA-1, name-based): the same name in the same namespace gives the same id. */
export function uuidV5(name: string, namespace: string): string {
  const hex = namespace.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new TypeError(`not a UUID namespace: ${namespace}`);
  const bytes = createHash('sha1').update(Buffer.from(hex, 'hex')).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const out = bytes.toString('hex');
  return `${out.slice(0, 8)}-${out.slice(8, 12)}-${out.slice(12, 16)}-${out.slice(16, 20)}-${out.slice(20)}`;
}

export interface AlertIdParts {
  checkId: string;
  alertType: AlertType;
  resultId: string;
  /** 0 for the first alert, n for the nth reminder. */
  reminderSequence: number;
}

/**
 * The id of one alert. It depends only on what caused the alert, never on when it was decided,
 * so an alerter that crashes after publishing and replays the result publishes the same id, and
 * the dispatcher delivers it once. A result causes at most one alert of each type, which makes
 * (check, type, result, sequence) unique.
 */
export function alertId(parts: AlertIdParts): string {
  const name = [
    parts.checkId.toLowerCase(),
    parts.alertType,
    parts.resultId.toLowerCase(),
    String(parts.reminderSequence),
  ].join('/');
  return uuidV5(name, ALERT_ID_NAMESPACE);
}
