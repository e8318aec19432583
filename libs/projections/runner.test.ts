import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { createSqliteEventStore, type EventStore, type NewEvent } from '#eventstore';
import { createSqliteStateStore, type StateStore } from '#statestore';
import type { Projection } from './projection.ts';
import { readCheckpoint, ProjectionRunner } from './runner.ts';

const log = createLogger({ level: 'silent' });

/** Appends each event's position to a JSON list: a redelivered event would show up twice. */
const logProjection: Projection = {
  name: 'log',
  async apply(event, view) {
    const list = JSON.parse((await view.get('rm:log')) ?? '[]') as string[];
    list.push(event.position.toString());
    return [
      { op: 'set', key: 'rm:log', value: JSON.stringify(list) },
      { op: 'hset', key: 'rm:by-stream', field: event.stream, value: String(event.revision) },
    ];
  },
};

const newEvent = (i: number): NewEvent => ({
  id: randomUUID(),
  type: 'Something',
  data: { i },
  metadata: {
    accountId: null,
    actor: 'test',
    commandId: randomUUID(),
    occurredAt: new Date().toISOString(),
    schemaVersion: 1,
  },
});

describe('ProjectionRunner', () => {
  let dir: string;
  let events: EventStore;
  let state: StateStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-projection-'));
    events = createSqliteEventStore({ path: join(dir, 'events.sqlite') });
    state = createSqliteStateStore({ path: join(dir, 'state.sqlite') });
  });
  afterEach(async () => {
    await events.close();
    await state.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const appendMany = async (count: number, streams = 10) => {
    for (let i = 0; i < count; i++) await events.append(`s-${i % streams}`, [newEvent(i)], 'any');
  };
  const runner = (options: Partial<ConstructorParameters<typeof ProjectionRunner>[0]> = {}) =>
    new ProjectionRunner({
      name: 'test',
      projections: [logProjection],
      eventStore: events,
      stateStore: state,
      log,
      ...options,
    });
  const applied = async () => JSON.parse((await state.get('rm:log')) ?? '[]') as string[];

  it('catches up, then follows live appends, writing the checkpoint with the read model', async () => {
    await appendMany(1200);
    const r = runner({ batchSize: 100 });
    r.start();
    expect(await r.waitFor(await events.headPosition(), 10_000)).toBe(true);
    expect(await applied()).toHaveLength(1200);
    await appendMany(5);
    expect(await r.waitFor(await events.headPosition(), 5_000)).toBe(true);
    await r.stop();
    const list = await applied();
    expect(list).toHaveLength(1205);
    expect(new Set(list).size).toBe(1205);
    expect(await readCheckpoint(state, 'test')).toBe(await events.headPosition());
    expect((await state.hgetall('rm:by-stream'))['s-0']).toBe(String(Math.floor(1204 / 10)));
  });

  it('stopped and restarted from its checkpoint, it applies every event exactly once', async () => {
    await appendMany(300);
    const first = runner({ batchSize: 7 });
    first.start();
    await first.waitFor(150n, 5_000);
    await first.stop();
    const partial = (await applied()).length;
    expect(partial).toBeGreaterThanOrEqual(150);
    await appendMany(50);
    const second = runner({ batchSize: 7 });
    second.start();
    expect(await second.waitFor(await events.headPosition(), 10_000)).toBe(true);
    await second.stop();
    const list = (await applied()).map(Number);
    expect(list).toEqual(Array.from({ length: 350 }, (_, i) => i + 1));
  });

  it('lets only the lease holder apply events', async () => {
    await appendMany(50);
    const a = runner({ leaseTtlMs: 60_000 });
    const b = runner({ leaseTtlMs: 60_000 });
    a.start();
    await a.waitFor(50n, 5_000);
    b.start();
    await appendMany(20);
    expect(await a.waitFor(70n, 5_000)).toBe(true);
    expect(b.checkpoint).toBe(0n);
    await a.stop();
    await b.stop();
    expect((await applied()).length).toBe(70);
  });

  it('waitFor gives up after its timeout when the position is never reached', async () => {
    const r = runner();
    r.start();
    const started = Date.now();
    expect(await r.waitFor(999n, 200)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    await r.stop();
  });

  it('reports its lag as a metric', async () => {
    const metrics = new Registry();
    await appendMany(10);
    const r = runner({ metrics });
    r.start();
    await r.waitFor(10n, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const gauge = await metrics.getSingleMetric('vigil_projection_lag')!.get();
    expect(gauge.values[0]?.value).toBe(0);
    await r.stop();
  });
});
