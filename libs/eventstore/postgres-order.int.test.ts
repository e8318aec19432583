import { randomInt } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { sleep } from '#core';
import { collect, testEvent } from './contract.ts';
import type { EventStore, RecordedEvent } from './port.ts';
import { createPostgresEventStore } from './postgres.ts';
import { postgresTestUrl, uniqueSchema } from './postgres-test-url.ts';

const url = postgresTestUrl();
const schemas: string[] = [];
afterAll(async () => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  for (const name of schemas) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  await client.end();
});

const writers = 8;
const appendsPerWriter = 30;
const rounds = 3;

/**
 * 8 writers on their own connections append while each transaction is held open for a random
 * 0-20 ms after its insert, so transactions commit out of position order. A live subscriber
 * follows $all the whole time. Returns, per round, what the subscriber saw and what was written.
 */
async function race(reader: (schema: string) => Promise<EventStore>) {
  const schema = uniqueSchema('order');
  schemas.push(schema);
  const stores = await Promise.all(
    Array.from({ length: writers }, () =>
      createPostgresEventStore({
        connectionString: url,
        schema,
        poolSize: 1,
        beforeCommit: () => sleep(randomInt(0, 20)),
      }),
    ),
  );
  const subscriber = await reader(schema);
  const outcomes: { seen: RecordedEvent[]; written: Set<string> }[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const from = await subscriber.headPosition();
      const prefix = `r${round}`;
      const total = writers * appendsPerWriter;
      const seen: RecordedEvent[] = [];
      const following = collect(subscriber, {
        from,
        count: total,
        keep: (event) => event.stream.startsWith(`${prefix}-`),
        onEvent: (event) => seen.push(event),
        timeoutMs: 30_000,
      });
      const written = new Set<string>();
      await Promise.all(
        stores.map(async (store, w) => {
          for (let i = 0; i < appendsPerWriter; i++) {
            const event = testEvent('Raced', { w, i });
            await store.append(`${prefix}-${w}-${i % 3}`, [event], 'any');
            written.add(event.id);
          }
        }),
      );
      // Every writer has committed; give the subscriber until it reaches the head, then stop it.
      const head = await subscriber.headPosition();
      const deadline = Date.now() + 10_000;
      while ((seen.at(-1)?.position ?? 0n) < head && seen.length < total && Date.now() < deadline) await sleep(50);
      await Promise.race([following, sleep(1_000)]);
      outcomes.push({ seen: [...seen], written });
    }
  } finally {
    await Promise.all([...stores, subscriber].map((store) => store.close()));
  }
  return outcomes;
}

const inOrder = (events: RecordedEvent[]) => events.every((e, i) => i === 0 || e.position > events[i - 1]!.position);

describe('PostgreSQL $all order under concurrent transactions', () => {
  it('a live subscriber sees every event exactly once, in position order', { timeout: 180_000 }, async () => {
    const outcomes = await race((schema) => createPostgresEventStore({ connectionString: url, schema }));
    for (const { seen, written } of outcomes) {
      const ids = seen.map((event) => event.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(new Set(ids)).toEqual(written);
      expect(inOrder(seen)).toBe(true);
    }
  });

  // The control: the same race, read the naive way (position alone), must lose events. If it did
  // not, the race above would prove nothing.
  it('the naive reader (position alone) skips events in the same race', { timeout: 180_000 }, async () => {
    const outcomes = await race((schema) =>
      createPostgresEventStore({ connectionString: url, schema, unsafeReadByPositionOnly: true }),
    );
    const missed = outcomes.reduce((sum, { seen, written }) => sum + (written.size - seen.length), 0);
    expect(missed).toBeGreaterThan(0);
  });
});

describe('PostgreSQL live subscription', () => {
  it('delivers by polling when the LISTEN connection is lost', async () => {
    const schema = uniqueSchema('listen');
    schemas.push(schema);
    const reader = await createPostgresEventStore({ connectionString: url, schema, pollIntervalMs: 200 });
    const writer = await createPostgresEventStore({ connectionString: url, schema });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const seen: RecordedEvent[] = [];
      const following = collect(reader, { from: 0n, count: 2, keep: () => true, onEvent: (e) => seen.push(e) });
      await writer.append('a-1', [testEvent('First')], 'no_stream');
      while (seen.length < 1) await sleep(20);
      // The first event may arrive by polling before the LISTEN connection is up (a loaded
      // machine): wait for the connection itself, or this finds nothing to terminate.
      const listening = () =>
        admin.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND state IS NOT NULL', [
          `vigil-listen:${schema}`,
        ]);
      await vi.waitFor(async () => expect((await listening()).rowCount).toBe(1), { timeout: 10_000, interval: 50 });
      const killed = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
        [`vigil-listen:${schema}`],
      );
      expect(killed.rowCount).toBe(1);
      await writer.append('a-1', [testEvent('Second')], 0);
      expect((await following).map((e) => e.type)).toEqual(['First', 'Second']);
    } finally {
      await admin.end();
      await reader.close();
      await writer.close();
    }
  });
});
