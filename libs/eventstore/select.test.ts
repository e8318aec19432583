import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '#core';
import { createEventStore, eventStoreAdapter } from './select.ts';

const log = pino({ level: 'silent' });
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-eventstore-select-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('createEventStore', () => {
  it('uses SQLite at <dataDir>/events.sqlite when no URL is set', async () => {
    const store = await createEventStore({ dataDir: join(dir, 'data'), log });
    try {
      await store.ping();
      expect(existsSync(join(dir, 'data', 'events.sqlite'))).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('uses EventStoreDB when a URL is set', async () => {
    const store = await createEventStore({
      eventStoreUrl: 'esdb://127.0.0.1:1?tls=false',
      dataDir: join(dir, 'unused'),
      log,
    });
    try {
      await expect(store.ping()).rejects.toBeInstanceOf(UnavailableError);
      expect(existsSync(join(dir, 'unused'))).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('picks the adapter by the URL scheme', () => {
    expect(eventStoreAdapter(undefined)).toBe('sqlite');
    expect(eventStoreAdapter('postgres://u@127.0.0.1/db')).toBe('postgres');
    expect(eventStoreAdapter('postgresql://u@127.0.0.1/db')).toBe('postgres');
    expect(eventStoreAdapter('esdb://127.0.0.1:2113?tls=false')).toBe('eventstoredb');
  });

  it('uses PostgreSQL when a postgres:// URL is set, and fails start-up when it is unreachable', async () => {
    await expect(
      createEventStore({ eventStoreUrl: 'postgres://postgres@127.0.0.1:1/vigil', dataDir: join(dir, 'pg'), log }),
    ).rejects.toBeInstanceOf(UnavailableError);
    expect(existsSync(join(dir, 'pg'))).toBe(false);
  });
});
