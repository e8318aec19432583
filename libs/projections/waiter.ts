import { sleep } from '#core';
import type { StateStore } from '#statestore';
import { readCheckpoint } from './runner.ts';

/**
 * Read-your-writes for a process that does not run the projection itself: polls the checkpoint
 * the projector writes, until it passes the position or the time runs out.
 */
export function createCheckpointWaiter(stateStore: StateStore, name: string, pollMs = 5) {
  return {
    async waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if ((await readCheckpoint(stateStore, name)) >= position) return true;
        if (Date.now() >= deadline) return false;
        await sleep(pollMs);
      }
    },
  };
}
