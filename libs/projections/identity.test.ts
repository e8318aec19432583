import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger, sleep } from '#core';
import { createSqliteEventStore, type EventStore, type NewEvent } from '#eventstore';
import { createSqliteStateStore, type StateStore } from '#statestore';
import type { Projection } from './projection.ts';
import { checkpointStoreKey, ProjectionRunner, readCheckpoint, StoreMismatchError } from './runner.ts';

const log = createLogger({ level: 'silent' });

const countProjection: Projection = {
  name: 'count',
  async apply(event, view) {
    const n = Number((await view.get('rm:count')) ?? '0');
    return [{ op: 'set', key: 'rm:count', value: String(n + 1) }];
  },
};

const newEvent = (): NewEvent => ({
  id: randomUUID(),
  type: 'Counted',
  data: {},
  metadata: {
    accountId: null,
    actor: 't',
    commandId: randomUUID(),
    occurredAt: new Date().toISOString(),
    schemaVersion: 1,
  },
});

describe('a projection checks that its read models belong to its event store', () => {
  let dir: string;
  let state: StateStore;
  const opened: EventStore[] = [];
  const open = (file: string) => {
    const store = createSqliteEventStore({ path: join(dir, file) });
    opened.push(store);
    return store;
  };
  const runner = (events: EventStore, onFatal?: (error: Error) => void) =>
    new ProjectionRunner({
      name: 'p',
      projections: [countProjection],
      eventStore: events,
      stateStore: state,
      log,
      onFatal,
    });
  const project = async (events: EventStore) => {
    const r = runner(events);
    await r.verifyStore();
    r.start();
    expect(await r.waitFor(await events.headPosition(), 5_000)).toBe(true);
    await r.stop();
  };
  const append = async (events: EventStore, n: number) => {
    for (let i = 0; i < n; i++) await events.append(`s-${i % 3}`, [newEvent()], 'any');
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-identity-'));
    state = createSqliteStateStore({ path: join(dir, 'state.sqlite') });
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    await state.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the store identity with the checkpoint', async () => {
    const events = open('a.sqlite');
    await append(events, 5);
    await project(events);
    expect(await state.get(checkpointStoreKey('p'))).toBe(await events.identity());
    expect(await readCheckpoint(state, 'p')).toBe(5n);
  });

  it('refuses another event store, naming both identities and the rebuild command, and applies nothing', async () => {
    const first = open('a.sqlite');
    await append(first, 5);
    await project(first);
    const second = open('b.sqlite'); // a new, empty store, as with a fresh DATA_DIR
    await append(second, 7);
    const error = await runner(second)
      .verifyStore()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreMismatchError);
    const message = (error as Error).message;
    expect(message).toContain(await first.identity());
    expect(message).toContain(await second.identity());
    expect(message).toContain('npm run projections:rebuild');

    // Started anyway (as a replica taking the lease would), it stops for good instead of skipping.
    let fatal: Error | undefined;
    const r = runner(second, (e) => (fatal = e));
    r.start();
    for (let i = 0; i < 100 && !fatal; i++) await sleep(20);
    await r.stop();
    expect(fatal).toBeInstanceOf(StoreMismatchError);
    expect(await state.get('rm:count')).toBe('5');
  });

  it('refuses a store whose head is behind the checkpoint (restored from an older backup)', async () => {
    const live = open('live.sqlite');
    await append(live, 4);
    const backup = join(dir, 'backup.sqlite');
    await live.close();
    copyFileSync(join(dir, 'live.sqlite'), backup);
    const reopened = open('live.sqlite');
    await append(reopened, 6);
    await project(reopened);
    const restored = open('backup.sqlite');
    expect(await restored.identity()).toBe(await reopened.identity());
    await expect(runner(restored).verifyStore()).rejects.toThrow(/past the head \(4\).*npm run projections:rebuild/s);
  });

  it('adopts the store when a checkpoint written before identities existed is within its history', async () => {
    const events = open('a.sqlite');
    await append(events, 3);
    await state.set('projection:p:checkpoint', '2');
    await state.set('rm:count', '2');
    const r = runner(events);
    await r.verifyStore();
    r.start();
    expect(await r.waitFor(3n, 5_000)).toBe(true);
    await r.stop();
    expect(await state.get('rm:count')).toBe('3');
    expect(await state.get(checkpointStoreKey('p'))).toBe(await events.identity());
  });
});

describe('the projection lease', () => {
  it('is short and renewed often, so a crashed holder blocks a successor for seconds, not ten', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-lease-'));
    const events = createSqliteEventStore({ path: join(dir, 'e.sqlite') });
    const state = createSqliteStateStore({ path: join(dir, 's.sqlite') });
    const r = new ProjectionRunner({
      name: 'p',
      projections: [countProjection],
      eventStore: events,
      stateStore: state,
      log,
    });
    try {
      r.start();
      await events.append('s', [newEvent()], 'any');
      expect(await r.waitFor(1n, 10_000)).toBe(true);
      const ttls: number[] = [];
      for (let i = 0; i < 3; i++) {
        ttls.push((await state.ttlMs('projection:p:lease')) ?? -1);
        await sleep(300);
      }
      expect(Math.min(...ttls)).toBeGreaterThan(0);
      expect(Math.max(...ttls)).toBeLessThanOrEqual(3_000);
    } finally {
      await r.stop();
      await events.close();
      await state.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
