import { describe, expect, it } from 'vitest';
import { InternalError, ValidationError } from '#core';
import { type ContractContext, eventually } from './contract-support.ts';

/** Counters and atomic batches. */
export function writeCases(ctx: ContractContext): void {
  describe('counters', () => {
    it('incr creates at 0, then adds', async () => {
      const k = ctx.key('ctr');
      expect(await ctx.store.incr(k)).toBe(1);
      expect(await ctx.store.incr(k, 5)).toBe(6);
      expect(await ctx.store.incr(k, -2)).toBe(4);
      expect(await ctx.store.get(k)).toBe('4');
      expect(await ctx.store.incr(ctx.key('ctr'), 0)).toBe(0);
    });

    it('applies the TTL only when the counter is created', async () => {
      const k = ctx.key('ctr');
      expect(await ctx.store.incr(k, 1, { ttlMs: 10_000 })).toBe(1);
      const first = await ctx.store.ttlMs(k);
      expect(first).toBeGreaterThan(9000);
      expect(await ctx.store.incr(k, 1, { ttlMs: 60_000 })).toBe(2);
      expect(await ctx.store.ttlMs(k)).toBeLessThanOrEqual(10_000);

      const plain = ctx.key('ctr');
      await ctx.store.incr(plain);
      await ctx.store.incr(plain, 1, { ttlMs: 10_000 });
      expect(await ctx.store.ttlMs(plain)).toBeNull();
    });

    it('a counter with a TTL expires and starts again at 0', async () => {
      const k = ctx.key('ctr');
      await ctx.store.incr(k, 3, { ttlMs: 150 });
      expect(await ctx.store.incr(k, 1, { ttlMs: 150 })).toBe(4);
      expect(await eventually(async () => (await ctx.store.get(k)) === null)).toBe(true);
      expect(await ctx.store.incr(k, 1, { ttlMs: 150 })).toBe(1);
    });

    it('concurrent increments are never lost', async () => {
      const k = ctx.key('ctr');
      const handles = [ctx.store, await ctx.peer()];
      await Promise.all(Array.from({ length: 100 }, (_, i) => handles[i % 2]!.incr(k, 1, { ttlMs: 60_000 })));
      expect(await ctx.store.get(k)).toBe('100');
    });

    it('rejects a fractional step, and incr on a value that is not an integer', async () => {
      await expect(ctx.store.incr(ctx.key('ctr'), 1.5)).rejects.toBeInstanceOf(ValidationError);
      const k = ctx.key('ctr');
      await ctx.store.set(k, 'abc');
      await expect(ctx.store.incr(k)).rejects.toBeInstanceOf(InternalError);
      expect(await ctx.store.get(k)).toBe('abc');
    });
  });

  describe('write', () => {
    it('applies a mixed batch in order', async () => {
      const [s, h, z, gone] = [ctx.key('w'), ctx.key('w'), ctx.key('w'), ctx.key('w')];
      await ctx.store.set(gone, 'old');
      await ctx.store.write([]);
      await ctx.store.write([
        { op: 'set', key: s, value: 'first' },
        { op: 'set', key: s, value: 'second' },
        { op: 'del', key: gone },
        { op: 'hset', key: h, field: 'f', value: '1' },
        { op: 'hdel', key: h, field: 'f' },
        { op: 'hset', key: h, field: 'g', value: '2' },
        { op: 'zadd', key: z, member: 'm', score: 1 },
        { op: 'zrem', key: z, member: 'm' },
        { op: 'zadd', key: z, member: 'n', score: 2 },
      ]);
      expect(await ctx.store.get(s)).toBe('second');
      expect(await ctx.store.get(gone)).toBeNull();
      expect(await ctx.store.hgetall(h)).toEqual({ g: '2' });
      expect(await ctx.store.zrange(z, 0, -1)).toEqual([{ member: 'n', score: 2 }]);
    });

    it('honours a TTL on a set op', async () => {
      const k = ctx.key('w');
      await ctx.store.write([{ op: 'set', key: k, value: 'v', ttlMs: 150 }]);
      expect(await ctx.store.get(k)).toBe('v');
      expect(await eventually(async () => (await ctx.store.get(k)) === null)).toBe(true);
    });

    it('a batch that fails leaves nothing behind', async () => {
      const [plain, fresh, h, z] = [ctx.key('w'), ctx.key('w'), ctx.key('w'), ctx.key('w')];
      await ctx.store.set(plain, 'string');
      await ctx.store.write([{ op: 'hset', key: h, field: 'keep', value: '1' }]);
      const failing = ctx.store.write([
        { op: 'set', key: fresh, value: 'x' },
        { op: 'hset', key: h, field: 'new', value: '2' },
        { op: 'zadd', key: z, member: 'm', score: 1 },
        { op: 'del', key: h },
        { op: 'hset', key: plain, field: 'f', value: 'v' },
      ]);
      await expect(failing).rejects.toBeInstanceOf(InternalError);
      expect(await ctx.store.get(fresh)).toBeNull();
      expect(await ctx.store.hgetall(h)).toEqual({ keep: '1' });
      expect(await ctx.store.zcard(z)).toBe(0);
      expect(await ctx.store.get(plain)).toBe('string');
    });

    it('follows the kinds the batch itself creates', async () => {
      const [a, b] = [ctx.key('w'), ctx.key('w')];
      await ctx.store.set(a, 'string');
      await ctx.store.write([
        { op: 'del', key: a },
        { op: 'hset', key: a, field: 'f', value: 'v' },
      ]);
      expect(await ctx.store.hget(a, 'f')).toBe('v');
      await expect(
        ctx.store.write([
          { op: 'set', key: b, value: 's' },
          { op: 'zadd', key: b, member: 'm', score: 1 },
        ]),
      ).rejects.toBeInstanceOf(InternalError);
      expect(await ctx.store.get(b)).toBeNull();
    });

    it('an invalid op rejects the whole batch before anything is written', async () => {
      const [k, z] = [ctx.key('w'), ctx.key('w')];
      await expect(
        ctx.store.write([
          { op: 'set', key: k, value: 'x' },
          { op: 'zadd', key: z, member: 'm', score: Number.NaN },
        ]),
      ).rejects.toBeInstanceOf(ValidationError);
      await expect(ctx.store.write([{ op: 'set', key: k, value: 'x', ttlMs: -1 }])).rejects.toBeInstanceOf(
        ValidationError,
      );
      expect(await ctx.store.get(k)).toBeNull();
      expect(await ctx.store.zcard(z)).toBe(0);
    });

    it('a concurrent reader never sees half a batch', async () => {
      const [a, b, h] = [ctx.key('atomic'), ctx.key('atomic'), ctx.key('atomic')];
      const reader = await ctx.peer();
      let writing = true;
      let reads = 0;
      const writer = (async () => {
        try {
          for (let i = 0; i < 150; i++) {
            await ctx.store.write([
              { op: 'set', key: a, value: String(i) },
              { op: 'hset', key: h, field: 'f', value: String(i) },
              { op: 'set', key: b, value: String(i) },
            ]);
          }
        } finally {
          writing = false;
        }
      })();
      const torn: string[] = [];
      const readLoop = (async () => {
        // Bounded, and yielding to the event loop, so an adapter that answers synchronously cannot starve the writer.
        while (writing && reads < 20_000) {
          const [va, vb] = await reader.getMany([a, b]);
          if (va !== vb) torn.push(`${va}/${vb}`);
          reads++;
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      // allSettled first, so a failing side never leaves the other one rejecting unobserved.
      await Promise.allSettled([writer, readLoop]);
      await Promise.all([writer, readLoop]);
      expect(torn).toEqual([]);
      expect(reads).toBeGreaterThan(0);
      expect(await ctx.store.getMany([a, b])).toEqual(['149', '149']);
      expect(await ctx.store.hget(h, 'f')).toBe('149');
    });
  });
}
