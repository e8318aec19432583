import { InternalError, ValidationError } from '#core';
import type { WriteOp } from './port.ts';

/**
 * Checks both adapters share, so a bad argument fails the same way everywhere and a batch
 * is rejected before any of it reaches the store (part of what makes write() all-or-nothing).
 */

/** A TTL in whole milliseconds; fractions round up so a tiny positive TTL never means "no expiry". */
export function checkTtl(ttlMs: number | undefined): number | undefined {
  if (ttlMs === undefined) return undefined;
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new ValidationError(`ttlMs must be a positive number of milliseconds, got ${String(ttlMs)}`);
  }
  return Math.ceil(ttlMs);
}

export function checkScore(score: number, name = 'score'): number {
  if (typeof score !== 'number' || !Number.isFinite(score)) {
    throw new ValidationError(`${name} must be a finite number, got ${String(score)}`);
  }
  return score;
}

/** A score bound may be infinite (an open range) but never NaN. */
export function checkBound(bound: number, name: string): number {
  if (typeof bound !== 'number' || Number.isNaN(bound)) {
    throw new ValidationError(`${name} must be a number, got ${String(bound)}`);
  }
  return bound;
}

export function checkInteger(value: number, name: string, min = Number.MIN_SAFE_INTEGER): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ValidationError(
      `${name} must be an integer${min > Number.MIN_SAFE_INTEGER ? ` >= ${min}` : ''}, got ${String(value)}`,
    );
  }
  return value;
}

function checkString(value: unknown, name: string): void {
  if (typeof value !== 'string') throw new ValidationError(`${name} must be a string, got ${typeof value}`);
}

export function checkOps(ops: WriteOp[]): void {
  if (!Array.isArray(ops)) throw new ValidationError('ops must be an array');
  ops.forEach((op, index) => {
    const at = `ops[${index}]`;
    checkString(op.key, `${at}.key`);
    switch (op.op) {
      case 'set':
        checkString(op.value, `${at}.value`);
        if (op.prefix !== undefined) checkString(op.prefix, `${at}.prefix`);
        checkTtl(op.ttlMs);
        return;
      case 'del':
        return;
      case 'hset':
        checkString(op.field, `${at}.field`);
        checkString(op.value, `${at}.value`);
        return;
      case 'hdel':
        checkString(op.field, `${at}.field`);
        return;
      case 'hincr':
        checkString(op.field, `${at}.field`);
        checkInteger(op.by, `${at}.by`);
        return;
      case 'zadd':
        checkString(op.member, `${at}.member`);
        checkScore(op.score, `${at}.score`);
        return;
      case 'zrem':
        checkString(op.member, `${at}.member`);
        return;
      default:
        throw new ValidationError(`${at}.op is unknown: ${String((op as { op: unknown }).op)}`);
    }
  });
}

/** A key used as two kinds of value (e.g. hset on a string) is a bug in the caller. */
export function wrongType(key: string, detail: string): InternalError {
  return new InternalError(`State store key holds a different type of value: ${detail}`, { details: { key } });
}

/** Redis-style rank window: negative indexes count from the end; returns [offset, count] or null when empty. */
export function rankWindow(size: number, start: number, stop: number): [number, number] | null {
  let from = start < 0 ? size + start : start;
  let to = stop < 0 ? size + stop : stop;
  if (from < 0) from = 0;
  if (to >= size) to = size - 1;
  if (from > to || from >= size) return null;
  return [from, to - from + 1];
}
