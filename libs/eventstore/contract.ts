import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConcurrencyError, ValidationError } from '#core';
import type { EventStore, NewEvent, RecordedEvent } from './port.ts';

/** A new event with a fresh uuid, as a command handler would build it. */
export function testEvent(type = 'ThingHappened', data: Record<string, unknown> = {}): NewEvent {
  return {
    id: randomUUID(),
    type,
    data,
    metadata: {
      accountId: 'acc-1',
      actor: 'user-1',
      commandId: randomUUID(),
      occurredAt: new Date().toISOString(),
      schemaVersion: 1,
    },
  };
}

/**
 * Reads a subscription until `count` events matching `keep` arrived, or `timeoutMs` passed.
 * Events from other suites sharing the server are skipped by `keep`.
 */
export async function collect(
  store: EventStore,
  options: {
    from: bigint;
    count: number;
    keep: (event: RecordedEvent) => boolean;
    timeoutMs?: number;
    onEvent?: (event: RecordedEvent) => void;
  },
): Promise<RecordedEvent[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 20_000);
  const seen: RecordedEvent[] = [];
  try {
    for await (const event of store.subscribeToAll({ fromPosition: options.from, signal: controller.signal })) {
      if (!options.keep(event)) continue;
      seen.push(event);
      options.onEvent?.(event);
      if (seen.length >= options.count) break;
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return seen;
}

function unique(prefix: string): string {
  return `${prefix}-${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}

function inStreams(prefix: string): (event: RecordedEvent) => boolean {
  return (event) => event.stream.startsWith(`${prefix}-`);
}

function expectStrictlyIncreasing(positions: bigint[]): void {
  for (let i = 1; i < positions.length; i++) {
    if (!((positions[i] as bigint) > (positions[i - 1] as bigint))) {
      throw new Error(`positions not strictly increasing at ${i}: ${positions[i - 1]} then ${positions[i]}`);
    }
  }
}

/**
 * The behaviour every EventStore adapter must show. Each test uses its own stream names, so
 * the suite can run against a server other suites share.
 */
export function eventStoreContract(name: string, factory: () => Promise<EventStore>): void {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    beforeAll(async () => {
      store = await factory();
    });
    afterAll(async () => {
      await store?.close();
    });

    it('appends and reads a stream back, with revisions and positions', async () => {
      const stream = unique('order');
      const events = [
        testEvent('Opened', { n: 1 }),
        testEvent('Renamed', { name: 'x', nested: { a: [1, 2] } }),
        testEvent('Closed'),
      ];
      const result = await store.append(stream, events, 'no_stream');
      expect(result.nextRevision).toBe(2);
      const read = await store.readStream(stream);
      expect(read.map((e) => ({ id: e.id, type: e.type, data: e.data, metadata: e.metadata }))).toEqual(events);
      expect(read.map((e) => e.stream)).toEqual([stream, stream, stream]);
      expect(read.map((e) => e.revision)).toEqual([0, 1, 2]);
      expectStrictlyIncreasing(read.map((e) => e.position));
      expect(read[2]?.position).toBe(result.position);
    });

    it('reads an unknown stream as []', async () => {
      expect(await store.readStream(unique('never'))).toEqual([]);
    });

    it('rejects an append without events', async () => {
      await expect(store.append(unique('empty'), [], 'any')).rejects.toBeInstanceOf(ValidationError);
    });

    it("'no_stream' on an existing stream is a concurrency conflict", async () => {
      const stream = unique('dup');
      await store.append(stream, [testEvent()], 'no_stream');
      await expect(store.append(stream, [testEvent()], 'no_stream')).rejects.toBeInstanceOf(ConcurrencyError);
      expect(await store.readStream(stream)).toHaveLength(1);
    });

    it('checks numeric expected revisions; any skips the check', async () => {
      const stream = unique('rev');
      await expect(store.append(stream, [testEvent()], 0)).rejects.toBeInstanceOf(ConcurrencyError);
      await store.append(stream, [testEvent(), testEvent()], 'no_stream');
      await expect(store.append(stream, [testEvent()], 0)).rejects.toBeInstanceOf(ConcurrencyError);
      await expect(store.append(stream, [testEvent()], 2)).rejects.toBeInstanceOf(ConcurrencyError);
      expect((await store.append(stream, [testEvent()], 1)).nextRevision).toBe(2);
      expect((await store.append(stream, [testEvent()], 'any')).nextRevision).toBe(3);
      expect((await store.append(unique('rev-any'), [testEvent()], 'any')).nextRevision).toBe(0);
      expect(await store.readStream(stream)).toHaveLength(4);
    });

    it('lets exactly one of several concurrent appends with the same expected revision win', async () => {
      for (let round = 0; round < 5; round++) {
        const stream = unique('race');
        await store.append(stream, [testEvent()], 'no_stream');
        const writers = Array.from({ length: 4 }, (_, i) =>
          store.append(stream, [testEvent('Raced', { writer: i })], 0),
        );
        const results = await Promise.allSettled(writers);
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(3);
        for (const failure of lost) expect(failure.reason).toBeInstanceOf(ConcurrencyError);
        expect(await store.readStream(stream)).toHaveLength(2);
      }
    });

    it('keeps order within a stream and globally across streams', async () => {
      const prefix = unique('order-many');
      const positions: bigint[] = [];
      const revisions = new Map<string, number>();
      for (let i = 0; i < 60; i++) {
        const stream = `${prefix}-${i % 7}`;
        const expected = revisions.get(stream) ?? 'no_stream';
        const result = await store.append(stream, [testEvent('Step', { i })], expected);
        revisions.set(stream, result.nextRevision);
        positions.push(result.position);
      }
      expectStrictlyIncreasing(positions);
      const stream3 = await store.readStream(`${prefix}-3`);
      expect(stream3.map((e) => e.data.i)).toEqual([3, 10, 17, 24, 31, 38, 45, 52, 59]);
      expect(stream3.map((e) => e.revision)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
      expectStrictlyIncreasing(stream3.map((e) => e.position));
    });

    it('reads a stream from a revision', async () => {
      const stream = unique('from');
      await store.append(
        stream,
        Array.from({ length: 5 }, (_, n) => testEvent('N', { n })),
        'no_stream',
      );
      expect((await store.readStream(stream, { fromRevision: 3 })).map((e) => e.data.n)).toEqual([3, 4]);
      expect((await store.readStream(stream, { fromRevision: 0 })).map((e) => e.revision)).toEqual([0, 1, 2, 3, 4]);
      expect(await store.readStream(stream, { fromRevision: 5 })).toEqual([]);
    });

    it('reports the head position', async () => {
      const before = await store.headPosition();
      const result = await store.append(unique('head'), [testEvent(), testEvent()], 'no_stream');
      const after = await store.headPosition();
      expect(result.position > before).toBe(true);
      expect(after >= result.position).toBe(true);
    });

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    it('catches a subscription up, then delivers live appends', async () => {
      const prefix = unique('live');
      const from = await store.headPosition();
      await store.append(`${prefix}-a`, [testEvent('A0'), testEvent('A1')], 'no_stream');
      await store.append(`${prefix}-b`, [testEvent('B0')], 'no_stream');
      const received: RecordedEvent[] = [];
      let caughtUp!: () => void;
      const caughtUpPromise = new Promise<void>((resolve) => (caughtUp = resolve));
      const done = collect(store, {
        from,
        count: 5,
        keep: inStreams(prefix),
        onEvent: (event) => {
          received.push(event);
          if (received.length === 3) caughtUp();
        },
      });
      await caughtUpPromise;
      await store.append(`${prefix}-a`, [testEvent('A2')], 1);
      await store.append(`${prefix}-c`, [testEvent('C0')], 'no_stream');
      const events = await done;
      expect(events.map((e) => e.type)).toEqual(['A0', 'A1', 'B0', 'A2', 'C0']);
      expect(events.every((e) => e.position > from)).toBe(true);
      expectStrictlyIncreasing(events.map((e) => e.position));
    });

    it('resumes after an abort from the last seen position with no gaps and no duplicates', async () => {
      const prefix = unique('resume');
      const from = await store.headPosition();
      const ids: string[] = [];
      const appendSome = async (round: number, count: number) => {
        for (let i = 0; i < count; i++) {
          const event = testEvent('R', { round, i });
          ids.push(event.id);
          await store.append(`${prefix}-${i % 5}`, [event], 'any');
        }
      };
      await appendSome(1, 40);
      const first = await collect(store, { from, count: 15, keep: inStreams(prefix) });
      expect(first).toHaveLength(15);
      const last = first.at(-1)!.position;
      await appendSome(2, 30);
      const rest = await collect(store, { from: last, count: ids.length - 15, keep: inStreams(prefix) });
      const seen = [...first, ...rest].map((e) => e.id);
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(ids);
    });

    it('handles many streams and 10,000 events in global order', { timeout: 120_000 }, async () => {
      const prefix = unique('bulk');
      const streams = 200;
      const perStream = 50;
      const from = await store.headPosition();
      const positions: bigint[] = [];
      for (let s = 0; s < streams; s++) {
        const batch = Array.from({ length: perStream }, (_, n) => testEvent('Bulk', { s, n }));
        positions.push((await store.append(`${prefix}-${s}`, batch, 'no_stream')).position);
      }
      expectStrictlyIncreasing(positions);
      const events = await collect(store, {
        from,
        count: streams * perStream,
        keep: inStreams(prefix),
        timeoutMs: 90_000,
      });
      expect(events).toHaveLength(streams * perStream);
      expectStrictlyIncreasing(events.map((e) => e.position));
      // Batches were appended one stream after another, so $all order is stream by stream.
      events.forEach((event, index) => {
        const s = Math.floor(index / perStream);
        const n = index % perStream;
        if (event.stream !== `${prefix}-${s}` || event.revision !== n || event.data.n !== n) {
          throw new Error(`event ${index} out of order: ${event.stream}@${event.revision}`);
        }
      });
      expect(events.at(-1)?.position).toBe(positions.at(-1));
      expect((await store.readStream(`${prefix}-${streams - 1}`)).map((e) => e.revision)).toEqual(
        Array.from({ length: perStream }, (_, n) => n),
      );
    });

    it('ends a live subscription when its signal aborts', async () => {
      const controller = new AbortController();
      const iterator = store
        .subscribeToAll({ fromPosition: await store.headPosition(), signal: controller.signal })
        [Symbol.asyncIterator]();
      const next = iterator.next();
      setTimeout(() => controller.abort(), 100);
      const outcome = await Promise.race([
        next,
        new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 5_000)),
      ]);
      expect(outcome).toEqual({ done: true, value: undefined });
    });

    it('yields nothing for an already aborted signal', async () => {
      await store.append(unique('pre'), [testEvent()], 'no_stream');
      const seen: RecordedEvent[] = [];
      for await (const event of store.subscribeToAll({ signal: AbortSignal.abort() })) seen.push(event);
      expect(seen).toEqual([]);
    });

    it('ends active subscriptions on close', async () => {
      const other = await factory();
      const iterator = other.subscribeToAll({ fromPosition: await other.headPosition() })[Symbol.asyncIterator]();
      const next = iterator.next();
      await new Promise((resolve) => setTimeout(resolve, 100));
      await other.close();
      const outcome = await Promise.race([
        next,
        new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 5_000)),
      ]);
      expect(outcome).toEqual({ done: true, value: undefined });
    });
  });
}
