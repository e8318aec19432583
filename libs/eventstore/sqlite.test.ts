import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sqlite, ConcurrencyError, ConflictError, InternalError, UnavailableError } from '#core';
import { collect, eventStoreContract, testEvent } from './contract.ts';
import type { EventStore, RecordedEvent } from './port.ts';
import { createSqliteEventStore } from './sqlite.ts';

const run = promisify(execFile);
const childScript = fileURLToPath(new URL('./fixtures/append-child.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

let dir: string;
let fileCount = 0;
const opened: EventStore[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vigil-eventstore-'));
});
afterAll(async () => {
  await Promise.all(opened.map((store) => store.close()));
  await rm(dir, { recursive: true, force: true });
});

function newPath(): string {
  fileCount += 1;
  return join(dir, `store-${fileCount}`, 'events.sqlite');
}

function open(path = newPath(), options: { pollIntervalMs?: number; pageSize?: number } = {}): EventStore {
  const store = createSqliteEventStore({ path, ...options });
  opened.push(store);
  return store;
}

interface ChildLine {
  ok: boolean;
  code?: string;
  id?: string;
  nextRevision?: number;
  position?: string;
}

/** Runs the fixture in a separate Node process (tsx loader) against the same file. */
async function child(path: string, stream: string, expected: string, count: number, startAt = 0): Promise<ChildLine[]> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', childScript, path, stream, expected, String(count), String(startAt)],
    {
      cwd: repoRoot,
      timeout: 30_000,
    },
  );
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ChildLine);
}

eventStoreContract('sqlite (file)', async () => open());

describe('SQLite event store', () => {
  it('creates the directory, uses WAL, and starts empty at position 0', async () => {
    const path = join(dir, 'nested', 'deeper', 'events.sqlite');
    const store = open(path);
    expect(existsSync(path)).toBe(true);
    expect(await store.headPosition()).toBe(0n);
    const raw = new Sqlite(path, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      raw.close();
    }
  });

  it('subscribes to an empty store and then receives its first event', async () => {
    const store = open();
    const done = collect(store, { from: 0n, count: 1, keep: () => true, timeoutMs: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const result = await store.append('first-1', [testEvent()], 'no_stream');
    const events = await done;
    expect(events.map((e) => e.position)).toEqual([result.position]);
    expect(result.position).toBe(1n);
  });

  it('rejects a duplicate event id as a conflict (not a concurrency error)', async () => {
    const store = open();
    const event = testEvent();
    await store.append('dup-a', [event], 'no_stream');
    const again = store.append('dup-b', [event], 'no_stream');
    await expect(again).rejects.toBeInstanceOf(ConflictError);
    await expect(again).rejects.not.toBeInstanceOf(ConcurrencyError);
    await expect(store.append('dup-a', [{ ...event }], 0)).rejects.toBeInstanceOf(ConflictError);
    // The failed append left nothing behind.
    expect(await store.readStream('dup-b')).toEqual([]);
    expect(await store.readStream('dup-a')).toHaveLength(1);
  });

  it('writes a multi-event append atomically', async () => {
    const store = open();
    const clash = testEvent();
    await store.append('atomic-a', [clash], 'no_stream');
    await expect(store.append('atomic-b', [testEvent(), testEvent(), clash], 'no_stream')).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(await store.readStream('atomic-b')).toEqual([]);
    expect(await store.headPosition()).toBe(1n);
  });

  it('raises a clear error for a corrupt row', async () => {
    const path = newPath();
    const store = open(path);
    await store.append('bad-json', [testEvent()], 'no_stream');
    await store.append('bad-meta', [testEvent()], 'no_stream');
    const raw = new Sqlite(path);
    raw.prepare("UPDATE events SET data = '{not json' WHERE stream = 'bad-json'").run();
    raw.prepare(`UPDATE events SET metadata = '{"actor":"x"}' WHERE stream = 'bad-meta'`).run();
    raw.close();
    await expect(store.readStream('bad-json')).rejects.toThrow(
      /Corrupt event .* position 1 \(stream bad-json, revision 0\): data is not valid JSON/,
    );
    const error = await store.readStream('bad-meta').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalError);
    expect((error as Error).message).toMatch(/position 2 .*metadata\.commandId/);
    await expect(collect(store, { from: 0n, count: 1, keep: () => true, timeoutMs: 2_000 })).rejects.toBeInstanceOf(
      InternalError,
    );
  });

  it('pages a long catch-up without gaps at page boundaries', async () => {
    const store = open(newPath(), { pageSize: 7 });
    for (let s = 0; s < 10; s++)
      await store.append(
        `page-${s}`,
        Array.from({ length: 5 }, () => testEvent()),
        'no_stream',
      );
    const events = await collect(store, { from: 0n, count: 50, keep: () => true, timeoutMs: 5_000 });
    expect(events.map((e) => e.position)).toEqual(Array.from({ length: 50 }, (_, i) => BigInt(i + 1)));
    const tail = await collect(store, { from: 43n, count: 7, keep: () => true, timeoutMs: 5_000 });
    expect(tail.map((e) => e.position)).toEqual([44n, 45n, 46n, 47n, 48n, 49n, 50n]);
  });

  it('wakes a local subscription on append without waiting for the poll', async () => {
    const store = open(newPath(), { pollIntervalMs: 60_000 });
    const done = collect(store, { from: 0n, count: 1, keep: () => true, timeoutMs: 5_000 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await store.append('wake-1', [testEvent()], 'no_stream');
    expect(await done).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('fails clearly after close', async () => {
    const store = createSqliteEventStore({ path: newPath() });
    await store.close();
    await expect(store.append('closed-1', [testEvent()], 'any')).rejects.toBeInstanceOf(UnavailableError);
    await expect(store.ping()).rejects.toBeInstanceOf(UnavailableError);
    await store.close();
  });

  describe('two instances on one file', () => {
    it("sees the other instance's appends in a live subscription", async () => {
      const path = newPath();
      const writer = open(path);
      const reader = open(path, { pollIntervalMs: 20 });
      const done = collect(reader, { from: 0n, count: 3, keep: () => true, timeoutMs: 5_000 });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await writer.append('two-a', [testEvent('X')], 'no_stream');
      await writer.append('two-a', [testEvent('Y'), testEvent('Z')], 0);
      expect((await done).map((e) => e.type)).toEqual(['X', 'Y', 'Z']);
    });

    it('keeps revision conflicts across instances', async () => {
      const path = newPath();
      const a = open(path);
      const b = open(path);
      await a.append('two-b', [testEvent()], 'no_stream');
      await expect(b.append('two-b', [testEvent()], 'no_stream')).rejects.toBeInstanceOf(ConcurrencyError);
      await b.append('two-b', [testEvent()], 0);
      await expect(a.append('two-b', [testEvent()], 0)).rejects.toBeInstanceOf(ConcurrencyError);
      expect((await a.readStream('two-b')).map((e) => e.revision)).toEqual([0, 1]);
    });
  });

  describe('a second OS process on one file', () => {
    it("sees the child's appends live and enforces revisions across processes", { timeout: 60_000 }, async () => {
      const path = newPath();
      const store = open(path, { pollIntervalMs: 20 });
      await store.append('proc-a', [testEvent('Parent')], 'no_stream');
      const live: RecordedEvent[] = [];
      const done = collect(store, {
        from: 1n,
        count: 3,
        keep: () => true,
        timeoutMs: 30_000,
        onEvent: (e) => live.push(e),
      });
      const lines = await child(path, 'proc-a', '0', 3);
      expect(lines.map((l) => l.ok)).toEqual([true, true, true]);
      expect(lines.map((l) => l.nextRevision)).toEqual([1, 2, 3]);
      const events = await done;
      expect(events.map((e) => e.id)).toEqual(lines.map((l) => l.id));
      expect(events.map((e) => String(e.position))).toEqual(lines.map((l) => l.position));
      expect(events.every((e) => e.type === 'ChildAppended')).toBe(true);

      // The parent's view is stale now; both directions must conflict.
      await expect(store.append('proc-a', [testEvent()], 0)).rejects.toBeInstanceOf(ConcurrencyError);
      const stale = await child(path, 'proc-a', '1', 1);
      expect(stale).toEqual([expect.objectContaining({ ok: false, code: 'CONCURRENCY_CONFLICT' })]);
      expect((await store.append('proc-a', [testEvent()], 3)).nextRevision).toBe(4);
    });

    it('lets exactly one of several racing processes win the same expected revision', { timeout: 60_000 }, async () => {
      const path = newPath();
      const store = open(path);
      await store.append('race-proc', [testEvent()], 'no_stream');
      // Children take ~1 s to boot; a common start time makes their appends actually overlap.
      const startAt = Date.now() + 3_000;
      const results = (await Promise.all([0, 1, 2].map(() => child(path, 'race-proc', '0', 1, startAt)))).flat();
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.filter((r) => !r.ok).map((r) => r.code)).toEqual(['CONCURRENCY_CONFLICT', 'CONCURRENCY_CONFLICT']);
      expect((await store.readStream('race-proc')).map((e) => e.revision)).toEqual([0, 1]);
    });

    it('keeps positions gap-free while processes append concurrently', { timeout: 60_000 }, async () => {
      const path = newPath();
      const store = open(path, { pollIntervalMs: 20 });
      const done = collect(store, { from: 0n, count: 101, keep: () => true, timeoutMs: 45_000 });
      const startAt = Date.now() + 2_000;
      const children = Promise.all([
        child(path, 'mix-a', 'any', 60, startAt),
        child(path, 'mix-b', 'no_stream', 60, startAt),
      ]);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
      for (let i = 0; i < 40; i++) await store.append('mix-parent', [testEvent()], 'any');
      const [a, b] = await children;
      expect(a?.every((l) => l.ok)).toBe(true);
      // Only the first append of mix-b may expect no stream; the rest must conflict.
      expect(b?.filter((l) => l.ok)).toHaveLength(1);
      const events = await done;
      const expectedCount = 40 + 60 + 1;
      expect(events.slice(0, expectedCount).map((e) => e.position)).toEqual(
        Array.from({ length: expectedCount }, (_, i) => BigInt(i + 1)),
      );
      expect((await store.readStream('mix-a')).map((e) => e.revision)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    });
  });
});
