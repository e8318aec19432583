import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStateStore, type StateStore } from '#statestore';
import { createStartTimes } from './started.ts';

let store: StateStore;
afterEach(async () => store?.close());

describe('start times of window runs', () => {
  it('a repeat of a window (same result id) reports the first attempt start time', async () => {
    store = createSqliteStateStore({ path: ':memory:' });
    const startTime = createStartTimes(store, 'eu-west-1', 75_000);
    const first = new Date('2026-11-23T12:00:01.250Z');
    const repeat = new Date('2026-11-23T12:01:20.000Z');
    expect((await startTime('result-a', first)).toISOString()).toBe(first.toISOString());
    expect((await startTime('result-a', repeat)).toISOString()).toBe(first.toISOString());
    // Another window, or the same window at another location, starts on its own clock.
    expect((await startTime('result-b', repeat)).toISOString()).toBe(repeat.toISOString());
    const elsewhere = createStartTimes(store, 'us-east-1', 75_000);
    expect((await elsewhere('result-a', repeat)).toISOString()).toBe(repeat.toISOString());
  });

  it('keeps the record longer than a lease takeover takes', async () => {
    store = createSqliteStateStore({ path: ':memory:' });
    await createStartTimes(store, 'eu-west-1', 75_000)('result-a', new Date());
    expect(await store.ttlMs('runner:started:eu-west-1:result-a')).toBeGreaterThan(3 * 75_000 - 1_000);
  });
});
