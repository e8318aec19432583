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

    it('claimDueFair takes one member per group in turn, so a large group at the head does not starve a small one', async () => {
      const k = ctx.key('q');
      const g = ctx.key('groups');
      const scores: Record<string, number> = {};
      const ops: { op: 'hset'; key: string; field: string; value: string }[] = [];
      // Group big has 20 members due first; group small has 2, due after all of them.
      for (let i = 0; i < 20; i++) {
        scores[`big-${String(i).padStart(2, '0')}`] = 100 + i;
        ops.push({ op: 'hset', key: g, field: `big-${String(i).padStart(2, '0')}`, value: 'big' });
      }
      scores['small-1'] = 200;
      scores['small-2'] = 201;
      ops.push(
        { op: 'hset', key: g, field: 'small-1', value: 'small' },
        { op: 'hset', key: g, field: 'small-2', value: 'small' },
      );
      await seed(k, { ...scores, loner: 150 });
      await ctx.store.write(ops);
      // Plain claimDue would hand out big-00..big-03; the fair claim alternates groups (loner has none: group '').
      const first = members(await ctx.store.claimDueFair(k, g, 1000, 5000, 4, 100));
      expect(first).toEqual(['big-00', 'loner', 'small-1', 'big-01']);
      expect(await ctx.store.zscore(k, 'small-1')).toBe(6000);
      expect(await ctx.store.zscore(k, 'big-02')).toBe(102);
      const second = members(await ctx.store.claimDueFair(k, g, 1000, 5000, 4, 100));
      expect(second).toEqual(['big-02', 'small-2', 'big-03', 'big-04']);
      // The scan bounds what it looks at: with scan 2, only the two earliest due are candidates.
      expect(members(await ctx.store.claimDueFair(k, g, 1000, 5000, 1, 2))).toEqual(['big-05']);
      expect(await ctx.store.claimDueFair(k, g, 50, 5000, 4, 100)).toEqual([]);
      expect(await ctx.store.claimDueFair(k, g, 1000, 5000, 0, 100)).toEqual([]);
      await expect(ctx.store.claimDueFair(k, g, 1000, 5000, -1, 100)).rejects.toBeInstanceOf(ValidationError);
    });

    it('claimDueFair with concurrent claimers claims every due member exactly once', async () => {
      const k = ctx.key('q');
      const g = ctx.key('groups');
      const total = 150;
      const scores: Record<string, number> = {};
      for (let i = 0; i < total; i++) scores[`job-${String(i).padStart(3, '0')}`] = 1000 + i;
      await seed(k, scores);
      await ctx.store.write(
        Object.keys(scores).map((m, i) => ({ op: 'hset' as const, key: g, field: m, value: `acct-${i % 4}` })),
      );
      const claimers = await Promise.all(Array.from({ length: 4 }, () => ctx.peer()));
      const claimed = await Promise.all(
        claimers.map(async (claimer) => {
          const mine: string[] = [];
          for (let round = 0; round < 100; round++) {
            const batch = await claimer.claimDueFair(k, g, 2000, 60_000, 7, 28);
            if (batch.length === 0) break;
            mine.push(...members(batch));
          }
          return mine;
        }),
      );
      const all = claimed.flat();
      expect(all).toHaveLength(total);
      expect(new Set(all).size).toBe(total);
    });
  });
}
