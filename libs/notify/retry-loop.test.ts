import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { ReadModels } from '#readmodels';
import { createSqliteStateStore, type StateStore } from '#statestore';
import type { Attempter } from './attempt.ts';
import { DEFAULT_CHANNEL_ENDPOINTS } from './config.ts';
import { KeySlots } from './lanes.ts';
import { RetryLoop } from './retry-loop.ts';
import { DeliveryStore } from './store.ts';

describe('RetryLoop', () => {
  let store: StateStore | undefined;
  afterEach(async () => store?.close());

  /** A loop on an empty queue: it looks once, then sleeps for idleMs. */
  const idleLoop = (idleMs: number) => {
    store = createSqliteStateStore({ path: ':memory:' });
    const deliveries = new DeliveryStore(store);
    let looks = 0;
    const counted = Object.create(deliveries) as DeliveryStore;
    counted.nextDue = () => {
      looks++;
      return deliveries.nextDue();
    };
    const loop = new RetryLoop({
      store: counted,
      readModels: new ReadModels(store),
      // Never called: nothing is due.
      attempter: {} as Attempter,
      originSlots: new KeySlots(4),
      endpoints: DEFAULT_CHANNEL_ENDPOINTS,
      log: createLogger({ level: 'silent' }),
      limit: 4,
      idleMs,
      leaseMs: 10_000,
    });
    return { loop, looks: () => looks };
  };

  const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

  it('stops at once while it sleeps on an empty queue', async () => {
    const { loop, looks } = idleLoop(60_000);
    loop.start();
    await settle();
    expect(looks()).toBe(1);
    const started = Date.now();
    await loop.stop();
    // Without stop() ending the sleep, this waits out the minute (and the test times out).
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('looks again when a retry is scheduled before its sleep ends, and not for one after', async () => {
    const { loop, looks } = idleLoop(60_000);
    loop.start();
    await settle();
    expect(looks()).toBe(1);
    loop.scheduled(Date.now() + 120_000);
    await settle();
    expect(looks()).toBe(1);
    loop.scheduled(Date.now() + 100);
    await settle();
    expect(looks()).toBe(2);
    await loop.stop();
  });
});
