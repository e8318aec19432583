import { describe, expect, it } from 'vitest';
import { sleep, ValidationError } from '#core';
import { type ContractContext, eventually } from './contract-support.ts';

/** Strings, TTLs, setIfAbsent and hashes. */
export function stringCases(ctx: ContractContext): void {
  describe('strings', () => {
    it('sets, gets, overwrites and deletes', async () => {
      const k = ctx.key('str');
      expect(await ctx.store.get(k)).toBeNull();
      await ctx.store.set(k, 'one');
      expect(await ctx.store.get(k)).toBe('one');
      await ctx.store.set(k, 'two');
      expect(await ctx.store.get(k)).toBe('two');
      await ctx.store.del(k);
      expect(await ctx.store.get(k)).toBeNull();
      await ctx.store.del(k);
    });

    it('keeps unicode and empty values intact', async () => {
      const k = ctx.key('str');
      await ctx.store.set(k, '');
      expect(await ctx.store.get(k)).toBe('');
      const text = JSON.stringify({ name: 'Zürich ✓ 東京', n: 1 });
      await ctx.store.set(k, text);
      expect(await ctx.store.get(k)).toBe(text);
    });

    it('getMany returns values in the order asked, null for missing keys', async () => {
      const [a, b, c] = [ctx.key('many'), ctx.key('many'), ctx.key('many')];
      await ctx.store.set(a, 'A');
      await ctx.store.set(c, 'C');
      expect(await ctx.store.getMany([c, b, a])).toEqual(['C', null, 'A']);
      expect(await ctx.store.getMany([])).toEqual([]);
    });

    it('setMany sets every key to the value, replacing any kind, with or without a TTL', async () => {
      const keys = Array.from({ length: 12_003 }, () => ctx.key('setmany'));
      await ctx.store.write([{ op: 'hset', key: keys[0]!, field: 'f', value: 'hash' }]);
      await ctx.store.set(keys[1]!, 'old', { ttlMs: 10_000 });
      await ctx.store.setMany(keys, 'token', { ttlMs: 60_000 });
      const values = await ctx.store.getMany(keys);
      expect(values.filter((value) => value === 'token')).toHaveLength(keys.length);
      const left = await ctx.store.ttlMs(keys[12_002]!);
      expect(left).toBeGreaterThan(10_000);
      expect(left).toBeLessThanOrEqual(60_000);
      await ctx.store.setMany([keys[0]!], 'forever');
      expect(await ctx.store.get(keys[0]!)).toBe('forever');
      expect(await ctx.store.ttlMs(keys[0]!)).toBeNull();
      await expect(ctx.store.setMany([], 'x')).resolves.toBeUndefined();
      await expect(ctx.store.setMany([keys[0]!], 'x', { ttlMs: 0 })).rejects.toBeInstanceOf(ValidationError);
    });

    it('expires a key after its TTL', async () => {
      const k = ctx.key('ttl');
      await ctx.store.set(k, 'v', { ttlMs: 150 });
      expect(await ctx.store.get(k)).toBe('v');
      const remaining = await ctx.store.ttlMs(k);
      expect(remaining).toBeGreaterThan(0);
      expect(remaining).toBeLessThanOrEqual(150);
      expect(await eventually(async () => (await ctx.store.get(k)) === null)).toBe(true);
      expect(await ctx.store.getMany([k])).toEqual([null]);
      expect(await ctx.store.ttlMs(k)).toBeNull();
    });

    it('a set without a TTL removes an earlier TTL', async () => {
      const k = ctx.key('ttl');
      await ctx.store.set(k, 'a', { ttlMs: 10_000 });
      await ctx.store.set(k, 'b');
      expect(await ctx.store.ttlMs(k)).toBeNull();
    });

    it('ttlMs is null for missing keys and keys without expiry, else the time left', async () => {
      const k = ctx.key('ttl');
      expect(await ctx.store.ttlMs(k)).toBeNull();
      await ctx.store.set(k, 'v');
      expect(await ctx.store.ttlMs(k)).toBeNull();
      await ctx.store.set(k, 'v', { ttlMs: 10_000 });
      const remaining = await ctx.store.ttlMs(k);
      expect(remaining).toBeGreaterThan(9000);
      expect(remaining).toBeLessThanOrEqual(10_000);
    });

    it('rejects TTLs that are not positive', async () => {
      for (const ttlMs of [0, -5, Number.NaN, Infinity]) {
        await expect(ctx.store.set(ctx.key('bad'), 'v', { ttlMs })).rejects.toBeInstanceOf(ValidationError);
      }
    });

    it('setIfAbsent sets once, then refuses, then sets again after the TTL', async () => {
      const k = ctx.key('nx');
      expect(await ctx.store.setIfAbsent(k, 'first', { ttlMs: 150 })).toBe(true);
      expect(await ctx.store.setIfAbsent(k, 'second', { ttlMs: 150 })).toBe(false);
      expect(await ctx.store.get(k)).toBe('first');
      expect(await eventually(async () => (await ctx.store.get(k)) === null)).toBe(true);
      expect(await ctx.store.setIfAbsent(k, 'third')).toBe(true);
      expect(await ctx.store.get(k)).toBe('third');
      expect(await ctx.store.ttlMs(k)).toBeNull();
    });

    it('setIfAbsent counts a key of another kind as present', async () => {
      const k = ctx.key('nx');
      await ctx.store.write([{ op: 'hset', key: k, field: 'f', value: 'v' }]);
      expect(await ctx.store.setIfAbsent(k, 'x')).toBe(false);
      expect(await ctx.store.hget(k, 'f')).toBe('v');
    });

    it('exactly one of many concurrent setIfAbsent calls wins', async () => {
      const k = ctx.key('nx');
      const handles = [ctx.store, await ctx.peer(), await ctx.peer()];
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => handles[i % 3]!.setIfAbsent(k, `v${i}`)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });

  describe('hashes', () => {
    it('hset, hget, hgetall and hdel', async () => {
      const k = ctx.key('hash');
      expect(await ctx.store.hgetall(k)).toEqual({});
      expect(await ctx.store.hget(k, 'a')).toBeNull();
      await ctx.store.write([
        { op: 'hset', key: k, field: 'a', value: '1' },
        { op: 'hset', key: k, field: 'b', value: '2' },
      ]);
      await ctx.store.write([{ op: 'hset', key: k, field: 'a', value: '3' }]);
      expect(await ctx.store.hget(k, 'a')).toBe('3');
      expect(await ctx.store.hget(k, 'missing')).toBeNull();
      expect(await ctx.store.hgetall(k)).toEqual({ a: '3', b: '2' });
      await ctx.store.write([{ op: 'hdel', key: k, field: 'a' }]);
      expect(await ctx.store.hgetall(k)).toEqual({ b: '2' });
      await ctx.store.write([{ op: 'hdel', key: k, field: 'b' }]);
      expect(await ctx.store.hgetall(k)).toEqual({});
    });

    it('del removes a whole hash, and set replaces it', async () => {
      const [k1, k2] = [ctx.key('hash'), ctx.key('hash')];
      await ctx.store.write([
        { op: 'hset', key: k1, field: 'a', value: '1' },
        { op: 'hset', key: k2, field: 'a', value: '1' },
      ]);
      await ctx.store.del(k1);
      expect(await ctx.store.hgetall(k1)).toEqual({});
      await ctx.store.set(k2, 'plain');
      expect(await ctx.store.get(k2)).toBe('plain');
      await ctx.store.del(k2);
      expect(await ctx.store.hgetall(k2)).toEqual({});
    });

    it('a set with a prefix stores prefix and value joined, alone and sharing it in a batch', async () => {
      const [one, two, three, plain] = [ctx.key('str'), ctx.key('str'), ctx.key('str'), ctx.key('str')];
      const shared = `{"alert":${JSON.stringify({ text: 'é𝄞'.repeat(100) })}`;
      await ctx.store.write([{ op: 'set', key: one, value: ',"n":1}', prefix: shared }]);
      await ctx.store.write([
        { op: 'set', key: two, value: ',"n":2}', prefix: shared },
        { op: 'set', key: plain, value: 'plain' },
        { op: 'set', key: three, value: '}', prefix: shared, ttlMs: 60_000 },
        { op: 'set', key: one, value: '', prefix: '' },
      ]);
      expect(await ctx.store.getMany([one, two, three, plain])).toEqual([
        '',
        `${shared},"n":2}`,
        `${shared}}`,
        'plain',
      ]);
      expect(await ctx.store.ttlMs(three)).toBeGreaterThan(50_000);
      await expect(ctx.store.write([{ op: 'set', key: one, value: 'v', prefix: 7 as never }])).rejects.toThrow(
        ValidationError,
      );
    });

    it('a set in a batch replaces a hash or zset written before and one made earlier in the batch', async () => {
      const [hash, zset, fresh, early] = [ctx.key('hash'), ctx.key('zset'), ctx.key('str'), ctx.key('zset')];
      await ctx.store.write([
        { op: 'hset', key: hash, field: 'a', value: '1' },
        { op: 'zadd', key: zset, member: 'm', score: 1 },
      ]);
      // Short-lived, so what is left once they expire shows whether the old rows went with the set.
      await ctx.store.write([
        { op: 'set', key: hash, value: 'h', ttlMs: 150 },
        { op: 'set', key: zset, value: 'z', ttlMs: 150 },
        { op: 'set', key: fresh, value: 'f' },
        { op: 'zadd', key: early, member: 'm', score: 1 },
        { op: 'set', key: early, value: 'e', ttlMs: 150 },
      ]);
      expect(await ctx.store.getMany([hash, zset, fresh, early])).toEqual(['h', 'z', 'f', 'e']);
      await sleep(300);
      expect(await ctx.store.getMany([hash, zset, early])).toEqual([null, null, null]);
      expect(await ctx.store.hgetall(hash)).toEqual({});
      expect(await ctx.store.zcard(zset)).toBe(0);
      expect(await ctx.store.zcard(early)).toBe(0);
    });
  });
}
