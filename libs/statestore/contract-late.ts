import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import { type ContractContext, members } from './contract-support.ts';

const MIN = 60_000;
const slot = (
  window: number,
  due: number,
  extra: Record<string, unknown> = { every: MIN, offset: 10_000, late: 5_000 },
) => JSON.stringify({ kind: 'run', window, due, ...extra });

/** The due-queue's claim with the late rule (claimDueRuns), and the hincr op its skip counts use. */
export function lateClaimCases(ctx: ContractContext): void {
  describe('claimDueRuns and hincr', () => {
    it('hincr adds to a hash field (created at 0) and rejects a non-hash key and a fractional by', async () => {
      const h = ctx.key('h');
      await ctx.store.write([
        { op: 'hincr', key: h, field: 'a', by: 2 },
        { op: 'hincr', key: h, field: 'a', by: 3 },
        { op: 'hincr', key: h, field: 'b', by: -1 },
      ]);
      expect(await ctx.store.hgetall(h)).toEqual({ a: '5', b: '-1' });
      const s = ctx.key('s');
      await ctx.store.set(s, 'x');
      await expect(ctx.store.write([{ op: 'hincr', key: s, field: 'a', by: 1 }])).rejects.toThrow(/different type/);
      await expect(ctx.store.write([{ op: 'hincr', key: h, field: 'a', by: 0.5 }])).rejects.toBeInstanceOf(
        ValidationError,
      );
      expect(await ctx.store.hget(h, 'a')).toBe('5');
    });

    it('skips late run entries in the claim: moved to the next window not late, slot rewritten, skips counted per member', async () => {
      const q = ctx.key('q');
      const g = ctx.key('groups');
      const prefix = `${ctx.key('slot')}:`;
      const skips = ctx.key('skips');
      // now = 10:20 (minutes). Windows are minutes; most entries are due 10 s into theirs and late after 5 s; lease 30 s.
      const now = 10 * MIN + 20_000;
      const lease = 30_000;
      const at = (offset: number) => ({ every: MIN, offset, late: 5_000 });
      const entries: Record<string, { score: number; slot: string; group: string }> = {
        // Due 10:10: late. Its next window 11:00 is due 11:10.
        late: { score: 10 * MIN + 10_000, slot: slot(10 * MIN, 10 * MIN + 10_000), group: 'big' },
        // Due 2 s ago: on time, claimed.
        onTime: { score: 10 * MIN + 18_000, slot: slot(10 * MIN, 10 * MIN + 18_000, at(18_000)), group: 'big' },
        // Window 8:00 ended more than a lease ago: left to the caller (its runners-down rule).
        longPast: { score: 8 * MIN + 10_000, slot: slot(8 * MIN, 8 * MIN + 10_000), group: 'big' },
        // A takeover: its score is a lease end, a lease after its due time 9:50.
        takeover: { score: 10 * MIN + 20_000, slot: slot(9 * MIN, 9 * MIN + 50_000, at(50_000)), group: 'big' },
        // No "every" in its slot (a private location's entry, an older slot): claimed as usual.
        plain: {
          score: 10 * MIN + 5_000,
          slot: JSON.stringify({ kind: 'run', window: 10 * MIN, due: 10 * MIN + 5_000 }),
          group: 'big',
        },
        // Late, of a spared group (not listed, spareListed false): kept while its window lasts.
        spared: { score: 10 * MIN + 10_000, slot: slot(10 * MIN, 10 * MIN + 10_000), group: 'small' },
        // Late, but first due before since (the runners were down then): left to the caller.
        old: { score: 9 * MIN - 1, slot: slot(9 * MIN, 9 * MIN - 1), group: 'big' },
        // Window 9:00 due 9:05; window 10:00's due time 10:05 is late too: both skipped, due 11:05.
        twice: { score: 9 * MIN + 5_000, slot: slot(9 * MIN, 9 * MIN + 5_000, at(5_000)), group: 'big' },
      };
      await ctx.store.write(
        Object.entries(entries).flatMap(([member, e]) => [
          { op: 'zadd' as const, key: q, member, score: e.score },
          { op: 'hset' as const, key: g, field: member, value: e.group },
          { op: 'set' as const, key: prefix + member, value: e.slot },
        ]),
      );
      const rule = { slotPrefix: prefix, skipsKey: skips, since: 9 * MIN, groups: ['big'], spareListed: false };
      const { claimed, skipped } = await ctx.store.claimDueRuns(q, g, now, lease, 100, 100, rule);
      expect(members(claimed).sort()).toEqual(['longPast', 'old', 'onTime', 'plain', 'spared', 'takeover']);
      expect(claimed.find((c) => c.member === 'onTime')).toEqual({
        member: 'onTime',
        score: 10 * MIN + 18_000,
        slot: entries.onTime!.slot,
      });
      expect(skipped).toBe(3);
      expect(await ctx.store.zscore(q, 'late')).toBe(11 * MIN + 10_000);
      expect(JSON.parse((await ctx.store.get(prefix + 'late'))!)).toEqual({
        kind: 'run',
        window: 11 * MIN,
        due: 11 * MIN + 10_000,
        every: MIN,
        offset: 10_000,
        late: 5_000,
      });
      expect(await ctx.store.zscore(q, 'twice')).toBe(11 * MIN + 5_000);
      expect(await ctx.store.hgetall(skips)).toEqual({ late: '1', twice: '2' });
      expect(await ctx.store.zscore(q, 'onTime')).toBe(now + lease);
      // Nothing is due now: the skipped entries are not claimed again.
      expect(await ctx.store.claimDueRuns(q, g, now, lease, 100, 100, rule)).toEqual({ claimed: [], skipped: 0 });
      // spareListed: only the listed groups are spared.
      const q2 = ctx.key('q2');
      await ctx.store.write([
        { op: 'zadd', key: q2, member: 'spared', score: 10 * MIN + 10_000 },
        { op: 'zadd', key: q2, member: 'late', score: 10 * MIN + 10_000 },
        { op: 'set', key: prefix + 'spared', value: slot(10 * MIN, 10 * MIN + 10_000) },
        { op: 'set', key: prefix + 'late', value: slot(10 * MIN, 10 * MIN + 10_000) },
      ]);
      const listed = { ...rule, groups: ['small'], spareListed: true };
      const second = await ctx.store.claimDueRuns(q2, g, now, lease, 1, 100, listed);
      expect(members(second.claimed)).toEqual(['spared']);
      expect(second.skipped).toBe(1);
      // With a late cap, an entry 2 s late (its own lateness 5 s) is skipped when the cap is 1 s, not when it is 3 s.
      const q3 = ctx.key('q3');
      await ctx.store.write([
        { op: 'zadd', key: q3, member: 'late', score: now - 2_000 },
        { op: 'set', key: prefix + 'late', value: slot(10 * MIN, now - 2_000, at(18_000)) },
      ]);
      const roomy = await ctx.store.claimDueRuns(q3, g, now, lease, 1, 100, { ...rule, lateCapMs: 3_000 });
      expect(members(roomy.claimed)).toEqual(['late']);
      await ctx.store.write([{ op: 'zadd', key: q3, member: 'late', score: now - 2_000 }]);
      const capped = await ctx.store.claimDueRuns(q3, g, now, lease, 1, 100, { ...rule, lateCapMs: 1_000 });
      expect(capped).toEqual({ claimed: [], skipped: 1 });
      expect(await ctx.store.zscore(q3, 'late')).toBe(11 * MIN + 18_000);
      expect(JSON.parse((await ctx.store.get(prefix + 'late'))!)).toMatchObject({ window: 11 * MIN, late: 5_000 });
      await expect(ctx.store.claimDueRuns(q2, g, now, lease, -1, 100, listed)).rejects.toBeInstanceOf(ValidationError);
      expect(await ctx.store.claimDueRuns(q2, g, now, lease, 0, 100, listed)).toEqual({ claimed: [], skipped: 0 });
    });
  });
}
