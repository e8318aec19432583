import type { WriteOp } from './port.ts';

/**
 * Write ops as one flat array of strings and numbers for the write thread's postMessage: a group
 * commit carries a few thousand ops, and the structured clone of as many small objects (each
 * property name written and read back, an object rebuilt per op) cost several times what the
 * same values in one array do, on both threads. Each op is its kind's code then its fields.
 * A set with a prefix (code 7) carries its prefix once per batch: the first op with it has the
 * text, later ones the number of the op that had it (the prefixes in the order first seen), so
 * one alert's JSON crosses once for its ten deliveries. The thread joins prefix and value.
 */
const CODES = ['set', 'del', 'hset', 'hdel', 'hincr', 'zadd', 'zrem', 'setPrefixed'] as const;
type Code = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7;

export type EncodedOps = (string | number | null)[];

export function encodeOps(ops: WriteOp[]): EncodedOps {
  const out: EncodedOps = [];
  let prefixes: Map<string, number> | undefined;
  for (const op of ops) {
    switch (op.op) {
      case 'set': {
        if (op.prefix === undefined) {
          out.push(0, op.key, op.value, op.ttlMs ?? null);
          break;
        }
        prefixes ??= new Map();
        const seen = prefixes.get(op.prefix);
        if (seen === undefined) prefixes.set(op.prefix, prefixes.size);
        out.push(7, op.key, seen ?? op.prefix, op.value, op.ttlMs ?? null);
        break;
      }
      case 'del':
        out.push(1, op.key);
        break;
      case 'hset':
        out.push(2, op.key, op.field, op.value);
        break;
      case 'hdel':
        out.push(3, op.key, op.field);
        break;
      case 'hincr':
        out.push(4, op.key, op.field, op.by);
        break;
      case 'zadd':
        out.push(5, op.key, op.member, op.score);
        break;
      case 'zrem':
        out.push(6, op.key, op.member);
        break;
    }
  }
  return out;
}

export function decodeOps(flat: EncodedOps): WriteOp[] {
  const ops: WriteOp[] = [];
  const prefixes: string[] = [];
  let i = 0;
  while (i < flat.length) {
    const code = flat[i++] as Code;
    const key = flat[i++] as string;
    switch (CODES[code]) {
      case 'set': {
        const value = flat[i++] as string;
        const ttl = flat[i++] as number | null;
        ops.push(ttl === null ? { op: 'set', key, value } : { op: 'set', key, value, ttlMs: ttl });
        break;
      }
      case 'setPrefixed': {
        const given = flat[i++] as string | number;
        const prefix = typeof given === 'number' ? prefixes[given] : given;
        if (prefix === undefined) throw new Error(`unknown write op prefix ${String(given)}`);
        if (typeof given === 'string') prefixes.push(given);
        const value = prefix + (flat[i++] as string);
        const ttl = flat[i++] as number | null;
        ops.push(ttl === null ? { op: 'set', key, value } : { op: 'set', key, value, ttlMs: ttl });
        break;
      }
      case 'del':
        ops.push({ op: 'del', key });
        break;
      case 'hset':
        ops.push({ op: 'hset', key, field: flat[i++] as string, value: flat[i++] as string });
        break;
      case 'hdel':
        ops.push({ op: 'hdel', key, field: flat[i++] as string });
        break;
      case 'hincr':
        ops.push({ op: 'hincr', key, field: flat[i++] as string, by: flat[i++] as number });
        break;
      case 'zadd':
        ops.push({ op: 'zadd', key, member: flat[i++] as string, score: flat[i++] as number });
        break;
      case 'zrem':
        ops.push({ op: 'zrem', key, member: flat[i++] as string });
        break;
      default:
        throw new Error(`unknown write op code ${String(code)}`);
    }
  }
  return ops;
}
