import { deserialize, serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { seeded } from '#test-support';
import { decodeOps, encodeOps } from './op-codec.ts';
import type { WriteOp } from './port.ts';

// A few shared prefixes, each its own string object per batch in real use (one alert's JSON).
const prefixes = ['', '{"alert":{"a":"é"}', 'p'.repeat(300), '0', '𝄞:'];

/** What the store is asked to do: a prefixed set stores prefix + value. */
const joined = (op: WriteOp): WriteOp => {
  if (op.op !== 'set' || op.prefix === undefined) return op;
  const { prefix, ...rest } = op;
  return { ...rest, value: prefix + op.value };
};

function randomOp(next: () => number): WriteOp {
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)]!;
  const text = () => pick(['', 'a', 'k:é€', '𝄞', '0', '-1', 'null', 'x'.repeat(200)]);
  const number = () => pick([0, -0, 1, -7, 0.5, 1e300, -Infinity, Infinity, Number.MAX_SAFE_INTEGER]);
  switch (Math.floor(next() * 10)) {
    case 8:
      return { op: 'set', key: text(), value: text(), prefix: pick(prefixes) };
    case 9:
      return { op: 'set', key: text(), value: text(), ttlMs: pick([0, 5]), prefix: pick(prefixes) };
    case 0:
      return { op: 'set', key: text(), value: text() };
    case 1:
      return { op: 'set', key: text(), value: text(), ttlMs: pick([0, 1, 60_000]) };
    case 2:
      return { op: 'del', key: text() };
    case 3:
      return { op: 'hset', key: text(), field: text(), value: text() };
    case 4:
      return { op: 'hdel', key: text(), field: text() };
    case 5:
      return { op: 'hincr', key: text(), field: text(), by: number() };
    case 6:
      return { op: 'zadd', key: text(), member: text(), score: number() };
    default:
      return { op: 'zrem', key: text(), member: text() };
  }
}

describe('write op codec (the write thread’s messages)', () => {
  it('gives back the same ops after the structured clone, for every kind', () => {
    const next = seeded(7);
    for (let round = 0; round < 200; round++) {
      const ops = Array.from({ length: Math.floor(next() * 20) }, () => randomOp(next));
      const cloned = deserialize(serialize(encodeOps(ops))) as ReturnType<typeof encodeOps>;
      expect(decodeOps(cloned)).toEqual(ops.map(joined));
    }
  });

  it('sends each prefix once per batch', () => {
    const alert = `{"alert":${JSON.stringify({ text: 'x'.repeat(1000) })}`;
    const ops: WriteOp[] = Array.from({ length: 10 }, (_, i) => ({
      op: 'set',
      key: `d${i}`,
      value: `,"n":${i}}`,
      prefix: i % 2 === 0 ? alert : '{"other":1',
    }));
    const encoded = encodeOps(ops);
    expect(encoded.filter((item) => item === alert)).toHaveLength(1);
    expect(JSON.stringify(encoded).length).toBeLessThan(alert.length + 400);
    expect(decodeOps(deserialize(serialize(encoded)) as typeof encoded)).toEqual(ops.map(joined));
  });

  it('refuses what it did not encode', () => {
    expect(() => decodeOps([9, 'k'])).toThrow(/unknown write op code/);
    expect(() => decodeOps([7, 'k', 0, 'v', null])).toThrow(/unknown write op prefix/);
  });
});
