import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '#core';
import type { StateStore } from './port.ts';
import type { ContractContext } from './contract-support.ts';
import { stringCases } from './contract-strings.ts';
import { writeCases } from './contract-write.ts';
import { sortedSetCases } from './contract-sorted.ts';
import { lateClaimCases } from './contract-late.ts';

export interface StateStoreContractOptions {
  /** Every factory call opens another handle on the same data, so cross-connection races are tested too. */
  sharesData?: boolean;
}

/** The behaviour every StateStore adapter must share. Run it once per adapter. */
export function stateStoreContract(
  name: string,
  factory: () => Promise<StateStore>,
  options: StateStoreContractOptions = {},
): void {
  describe(`StateStore contract: ${name}`, () => {
    const run = Math.random().toString(36).slice(2, 8);
    let counter = 0;
    const opened: StateStore[] = [];
    let current: StateStore | undefined;
    const open = async () => {
      const handle = await factory();
      opened.push(handle);
      return handle;
    };
    const ctx: ContractContext = {
      get store() {
        if (!current) throw new Error('the contract store is not open yet');
        return current;
      },
      peer: async () => (options.sharesData ? open() : ctx.store),
      key: (label) => `contract:${run}:${label}:${++counter}`,
    };

    beforeAll(async () => {
      current = await open();
    });
    afterAll(async () => {
      for (const handle of opened) await handle.close();
    });

    stringCases(ctx);
    writeCases(ctx);
    sortedSetCases(ctx);
    lateClaimCases(ctx);

    describe('deletePrefix', () => {
      it('deletes strings, hashes and sorted sets under the prefix and nothing else, with wildcards taken literally', async () => {
        const base = ctx.key('prefix');
        await ctx.store.write([
          { op: 'set', key: `${base}:a`, value: '1' },
          { op: 'hset', key: `${base}:h`, field: 'f', value: 'v' },
          { op: 'zadd', key: `${base}:z`, member: 'm', score: 1 },
          { op: 'set', key: `${base}X`, value: 'sibling' },
          { op: 'set', key: `${base}*:literal`, value: 'star' },
        ]);
        expect(await ctx.store.deletePrefix(`${base}:`)).toBe(3);
        expect(await ctx.store.get(`${base}:a`)).toBeNull();
        expect(await ctx.store.hgetall(`${base}:h`)).toEqual({});
        expect(await ctx.store.zcard(`${base}:z`)).toBe(0);
        expect(await ctx.store.get(`${base}X`)).toBe('sibling');
        expect(await ctx.store.deletePrefix(`${base}*`)).toBe(1);
        expect(await ctx.store.get(`${base}X`)).toBe('sibling');
      });
    });

    describe('lifecycle', () => {
      it('ping answers while open; calls after close fail as unavailable', async () => {
        await ctx.store.ping();
        const extra = await factory();
        await extra.ping();
        await extra.close();
        await expect(extra.get(ctx.key('closed'))).rejects.toBeInstanceOf(UnavailableError);
        await expect(extra.ping()).rejects.toBeInstanceOf(UnavailableError);
        await extra.close();
      });
    });
  });
}
