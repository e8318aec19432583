import { sleep } from '#core';
import type { StateStore } from './port.ts';

/** What the contract's case groups share: the store under test and fresh key names. */
export interface ContractContext {
  /** The store opened for the suite (set in beforeAll). */
  readonly store: StateStore;
  /** Another handle on the same data when the adapter has one; otherwise the same store. */
  peer(): Promise<StateStore>;
  /** A key no other test uses. */
  key(label: string): string;
}

/** Polls until check passes or the bound runs out; returns whether it passed. */
export async function eventually(check: () => Promise<boolean>, boundMs = 3000): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(25);
  }
  return check();
}

export const members = (list: { member: string }[]): string[] => list.map((entry) => entry.member);
