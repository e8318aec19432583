import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import { type ContractContext, members } from './contract-support.ts';

/** Sorted sets and the claimDue lease queue. */
export function sortedSetCases(ctx: ContractContext): void {
  describe('sorted sets', () => {
    it('zadd, zscore, zcard, zrem and score updates', async () => {
      const k = ctx.key('z');
      expect(await ctx.store.zcard(k)).toBe(0);
      expect(await ctx.store.zscore(k, 'a')).toBeNull();
      await ctx.store.write([
        { op: 'zadd', key: k, member: 'a', score: 1 },
        { op: 'zadd', key: k, member: 'b', score: -1.25 },
        { op: 'zadd', key: k, member: 'c', score: 1_700_000_000_000.5 },
      ]);
      expect(await ctx.store.zcard(k)).toBe(3);
      expect(await ctx.store.zscore(k, 'b')).toBe(-1.25);
      expect(await ctx.store.zscore(k, 'c')).toBe(1_700_000_000_000.5);
      await ctx.store.write([{ op: 'zadd', key: k, member: 'a', score: 0.1 }]);
      expect(await ctx.store.zscore(k, 'a')).toBe(0.1);
      expect(await ctx.store.zcard(k)).toBe(3);
      await ctx.store.write([{ op: 'zrem', key: k, member: 'a' }]);
      expect(await ctx.store.zscore(k, 'a')).toBeNull();
      expect(await ctx.store.zcard(k)).toBe(2);
    });

    it('zrange orders by score, then member in byte order, with Redis rank windows', async () => {
      const k = ctx.key('z');
      const tied = ['ä', 'a', 'Z', 'B', 'ab'];
      await ctx.store.write([
        ...tied.map((member) => ({ op: 'zadd' as const, key: k, member, score: 5 })),
        { op: 'zadd', key: k, member: 'zz', score: 1 },
        { op: 'zadd', key: k, member: 'aa', score: 9 },
      ]);
      const byteOrder = [...tied].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      expect(byteOrder).toEqual(['B', 'Z', 'a', 'ab', 'ä']);
      const all = await ctx.store.zrange(k, 0, -1);
      expect(members(all)).toEqual(['zz', ...byteOrder, 'aa']);
      expect(all[0]).toEqual({ member: 'zz', score: 1 });
      expect(members(await ctx.store.zrange(k, 1, 2))).toEqual(['B', 'Z']);
      expect(members(await ctx.store.zrange(k, -2, -1))).toEqual(['ä', 'aa']);
      expect(members(await ctx.store.zrange(k, -100, 0))).toEqual(['zz']);
      expect(members(await ctx.store.zrange(k, 5, 100))).toEqual(['ä', 'aa']);
      expect(await ctx.store.zrange(k, 7, 10)).toEqual([]);
      expect(await ctx.store.zrange(k, 3, 1)).toEqual([]);
      expect(await ctx.store.zrange(ctx.key('z'), 0, -1)).toEqual([]);
      await expect(ctx.store.zrange(k, 0.5, 1)).rejects.toBeInstanceOf(ValidationError);
    });

    it('zrangeByScore is inclusive, ordered and limited', async () => {
      const k = ctx.key('z');
      await ctx.store.write(
        [10, 20, 20, 30, 40].map((score, i) => ({ op: 'zadd' as const, key: k, member: `m${4 - i}`, score })),
      );
      expect(await ctx.store.zrangeByScore(k, 20, 30)).toEqual([
        { member: 'm2', score: 20 },
        { member: 'm3', score: 20 },
        { member: 'm1', score: 30 },
      ]);
      expect(members(await ctx.store.zrangeByScore(k, 20, 40, 2))).toEqual(['m2', 'm3']);
      expect(members(await ctx.store.zrangeByScore(k, -Infinity, Infinity))).toEqual(['m4', 'm2', 'm3', 'm1', 'm0']);
      expect(await ctx.store.zrangeByScore(k, 0, 100, 0)).toEqual([]);
      expect(await ctx.store.zrangeByScore(k, 41, 50)).toEqual([]);
      await expect(ctx.store.zrangeByScore(k, Number.NaN, 1)).rejects.toBeInstanceOf(ValidationError);
    });
  });

  describe('claimDue', () => {
    const seed = (k: string, scores: Record<string, number>) =>
      ctx.store.write(
        Object.entries(scores).map(([member, score]) => ({ op: 'zadd' as const, key: k, member, score })),
      );

    it('leases only due members, at most limit, and hands them out again when the lease ends', async () => {
      const k = ctx.key('q');
      await seed(k, { m1: 100, m2: 200, m3: 300 });
      expect(await ctx.store.claimDue(k, 50, 1000, 10)).toEqual([]);
      expect(await ctx.store.claimDue(k, 200, 1000, 10)).toEqual([
        { member: 'm1', score: 100 },
        { member: 'm2', score: 200 },
      ]);
      expect(await ctx.store.zscore(k, 'm1')).toBe(1200);
      expect(await ctx.store.claimDue(k, 250, 1000, 10)).toEqual([]);
      expect(members(await ctx.store.claimDue(k, 300, 1000, 1))).toEqual(['m3']);
      await ctx.store.write([{ op: 'zrem', key: k, member: 'm2' }]);
      expect(await ctx.store.claimDue(k, 1199, 1000, 10)).toEqual([]);
      expect(members(await ctx.store.claimDue(k, 1200, 1000, 10))).toEqual(['m1']);
      expect(await ctx.store.claimDue(k, 5000, 1000, 0)).toEqual([]);
      await expect(ctx.store.claimDue(k, 5000, 1000, -1)).rejects.toBeInstanceOf(ValidationError);
    });

    it('takes the earliest due members first', async () => {
      const k = ctx.key('q');
      await seed(k, { e: 5, d: 4, c: 3, b: 2, a: 1 });
      expect(members(await ctx.store.claimDue(k, 10, 100, 2))).toEqual(['a', 'b']);
      expect(members(await ctx.store.claimDue(k, 10, 100, 2))).toEqual(['c', 'd']);
    });

    it('with five concurrent claimers every due member is claimed exactly once', async () => {
      const k = ctx.key('q');
      const total = 200;
      const scores: Record<string, number> = {};
      for (let i = 0; i < total; i++) scores[`job-${String(i).padStart(3, '0')}`] = 1000 + i;
      await seed(k, scores);
      const claimers = await Promise.all(Array.from({ length: 5 }, () => ctx.peer()));
      const claimed = await Promise.all(
        claimers.map(async (claimer) => {
          const mine: string[] = [];
          // Bounded: 200 members in batches of 7 needs far fewer rounds than this.
          for (let round = 0; round < 100; round++) {
            const batch = await claimer.claimDue(k, 2000, 60_000, 7);
            if (batch.length === 0) break;
            mine.push(...members(batch));
          }
          return mine;
        }),
      );
      const all = claimed.flat();
      expect(all).toHaveLength(total);
      expect(new Set(all).size).toBe(total);
      expect(await ctx.store.zrangeByScore(k, -Infinity, 2000)).toEqual([]);
    });
  });
}
