import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '#core';
import type { StateStore } from './port.ts';
import type { ContractContext } from './contract-support.ts';
import { stringCases } from './contract-strings.ts';
import { writeCases } from './contract-write.ts';
import { sortedSetCases } from './contract-sorted.ts';

export interface StateStoreContractOptions {
  /** Every factory call opens another handle on the same data, so cross-connection races are tested too. */
  sharesData?: boolean;
}

/** The behaviour every StateStore adapter must share. Run it once per adapter. */
export function stateStoreContract(name: string, factory: () => Promise<StateStore>, options: StateStoreContractOptions = {}): void {
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
