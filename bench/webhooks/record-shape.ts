/**
 * What the shape of a delivery's durable record costs on SQLite (issue 26, webhooks): is the
 * append-only attempt log the lever earlier profiles named? Per delivery, a first attempt that
 * was delivered, in batches of 500 (the group commit's size), CPU µs of this process, three ways
 * in turns on files of their own:
 * - `state store`: the three ops DeliveryStore writes (the delivery, the attempt, its log entry)
 *   through the SQLite state store's write(), in this thread (its type checks included);
 * - `same tables, bare SQL`: the same three rows with bare statements on the state store's tables;
 * - `append-only log`: one row per attempt in a table with a rowid key, indexed by delivery and by
 *   channel, outcome and order (what the delivery log and the replay check would read).
 * - `state store, ordered ids`: the first, with delivery ids that begin with the alert's time
 *   (orderedId, as the dispatcher makes them since 2026-11-29) instead of random ones.
 * Values are the sizes of real records (the delivery with its alert about 1 KB, the attempt 0.3 KB).
 * `--prefill N` first writes N deliveries into every file, as a store that has kept a few days of
 * deliveries holds (random ids cost more as the key index outgrows the page cache).
 *
 *   npx tsx bench/webhooks/record-shape.ts [--batches 40] [--rounds 3] [--prefill 0]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Sqlite } from '#core';
import { orderedId } from '#notify';
import { createSqliteStateStore, type WriteOp } from '#statestore';

const { values } = parseArgs({
  options: {
    batches: { type: 'string', default: '40' },
    rounds: { type: 'string', default: '3' },
    prefill: { type: 'string', default: '0' },
  },
});
const BATCH = 500;
const batches = Number(values.batches);
const rounds = Number(values.rounds);
const prefill = Number(values.prefill);
const alert = JSON.stringify({ text: 'x'.repeat(900) });
const attempt = JSON.stringify({ body: 'y'.repeat(300) });
const dir = mkdtempSync(join(tmpdir(), 'vigil-record-shape-'));
let clock = 1_800_000_000_000;
const warmUpCount = () => Math.max(batches, Math.ceil(prefill / BATCH)) * BATCH;

type Writer = { name: string; batch(): Promise<void> | void; close(): Promise<void> | void };

async function stateStoreWriter(ordered: boolean): Promise<Writer> {
  const store = createSqliteStateStore({ path: join(dir, `store-${ordered}.sqlite`) });
  return {
    name: ordered ? 'state store, ordered ids' : 'state store write()',
    async batch() {
      const ops: WriteOp[] = [];
      for (let i = 0; i < BATCH; i++) {
        const at = clock++;
        const id = ordered ? orderedId(at, randomUUID()) : randomUUID();
        const member = `${String(at).padStart(15, '0')}:${id}:1`;
        ops.push(
          { op: 'set', key: `webhook:delivery:${id}`, value: `{"alert":${alert},"id":"${id}"}` },
          { op: 'set', key: `webhook:attempt:${member}`, value: attempt },
          { op: 'zadd', key: `webhook:log:channel-${i % 10}:delivered`, member, score: at },
        );
      }
      await store.write(ops);
    },
    close: () => store.close(),
  };
}

async function sameTablesWriter(): Promise<Writer> {
  const path = join(dir, 'tables.sqlite');
  // The state store makes its own schema; the bare statements then write into it.
  await createSqliteStateStore({ path }).close();
  const db = new Sqlite(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const set = db.prepare(
    'INSERT INTO kv (key, value, expires_at) VALUES (?, ?, NULL) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = NULL',
  );
  const zadd = db.prepare(
    'INSERT INTO zsets (key, member, score) VALUES (?, ?, ?) ON CONFLICT (key, member) DO UPDATE SET score = excluded.score',
  );
  const write = db.transaction(() => {
    for (let i = 0; i < BATCH; i++) {
      const id = randomUUID();
      const at = clock++;
      const member = `${String(at).padStart(15, '0')}:${id}:1`;
      set.run(`webhook:delivery:${id}`, `{"alert":${alert},"id":"${id}"}`);
      set.run(`webhook:attempt:${member}`, attempt);
      zadd.run(`webhook:log:channel-${i % 10}:delivered`, member, at);
    }
  });
  return { name: 'same tables, bare SQL', batch: () => write(), close: () => void db.close() };
}

function appendOnlyWriter(): Writer {
  const db = new Sqlite(join(dir, 'log.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE attempts (seq INTEGER PRIMARY KEY, delivery_id TEXT NOT NULL, channel_id TEXT NOT NULL,
    outcome TEXT NOT NULL, at INTEGER NOT NULL, delivery TEXT, attempt TEXT NOT NULL);
  CREATE INDEX attempts_by_delivery ON attempts (delivery_id);
  CREATE INDEX attempts_by_channel ON attempts (channel_id, outcome, seq);`);
  const insert = db.prepare(
    'INSERT INTO attempts (delivery_id, channel_id, outcome, at, delivery, attempt) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const write = db.transaction(() => {
    for (let i = 0; i < BATCH; i++) {
      const id = randomUUID();
      insert.run(id, `channel-${i % 10}`, 'delivered', clock++, `{"alert":${alert},"id":"${id}"}`, attempt);
    }
  });
  return { name: 'append-only log', batch: () => write(), close: () => void db.close() };
}

const writers = [
  await stateStoreWriter(false),
  await stateStoreWriter(true),
  await sameTablesWriter(),
  appendOnlyWriter(),
];
try {
  // Warm-up: every file holds some pages of each index before anything is timed.
  const warmUp = Math.max(batches, Math.ceil(prefill / BATCH));
  for (const writer of writers) for (let b = 0; b < warmUp; b++) await writer.batch();
  const totals = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++)
    for (const writer of writers) {
      const started = process.cpuUsage();
      for (let b = 0; b < batches; b++) await writer.batch();
      const used = process.cpuUsage(started);
      const us = (used.user + used.system) / (batches * BATCH);
      (totals.get(writer.name) ?? totals.set(writer.name, []).get(writer.name)!).push(us);
    }
  console.log(
    `record shapes: ${batches} batches of ${BATCH} per round, ${rounds} rounds, after ${warmUpCount()} deliveries; load ${loadavg()[0]!.toFixed(2)}`,
  );
  for (const [name, us] of totals)
    console.log(`  ${name.padEnd(24)} ${us.map((x) => x.toFixed(1)).join(', ')} µs CPU per delivery`);
} finally {
  for (const writer of writers) await writer.close();
  rmSync(dir, { recursive: true, force: true });
}
