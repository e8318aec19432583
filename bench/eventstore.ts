import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createLogger } from '#core';
import { createPostgresEventStore, createSqliteEventStore, type EventStore, type NewEvent } from '#eventstore';
import { benchConfig } from './config.ts';
import { log, printMachine, printTable, writeResults } from './support/report.ts';
import { runSuffix } from './support/services.ts';

/**
 * Event store: appends (one writer, and 8 concurrent writers) and catch-up reads of $all, on
 * SQLite (the embedded baseline) and PostgreSQL, in the same run. `npm run bench -- eventstore`.
 */
const quiet = createLogger({ level: 'silent' });

const event = (i: number): NewEvent => ({
  id: randomUUID(),
  type: 'VariableUpdated',
  data: { value: `value ${i}`, locked: false, secret: false, updatedBy: 'bench', at: new Date().toISOString() },
  metadata: {
    accountId: 'acc',
    actor: 'bench',
    commandId: randomUUID(),
    occurredAt: new Date().toISOString(),
    schemaVersion: 1,
  },
});

interface Figures {
  sequentialPerSecond: number;
  sequentialP50Ms: number;
  concurrentPerSecond: number;
  catchUpPerSecond: number;
  events: number;
}

async function measure(store: EventStore, sequential: number, writers: number, perWriter: number): Promise<Figures> {
  const latencies: number[] = [];
  let started = performance.now();
  for (let i = 0; i < sequential; i++) {
    const t = performance.now();
    await store.append(`seq-${i % 100}`, [event(i)], 'any');
    latencies.push(performance.now() - t);
  }
  const sequentialMs = performance.now() - started;
  started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; i < perWriter; i++) await store.append(`w${w}-${i % 20}`, [event(i)], 'any');
    }),
  );
  const concurrentMs = performance.now() - started;
  const total = sequential + writers * perWriter;
  const head = await store.headPosition();
  started = performance.now();
  const stop = new AbortController();
  let read = 0;
  for await (const recorded of store.subscribeToAll({ signal: stop.signal })) {
    read++;
    if (recorded.position >= head) break;
  }
  stop.abort();
  const catchUpMs = performance.now() - started;
  latencies.sort((a, b) => a - b);
  return {
    sequentialPerSecond: Math.round((sequential / sequentialMs) * 1000),
    sequentialP50Ms: Math.round((latencies[Math.floor(latencies.length / 2)] ?? 0) * 100) / 100,
    concurrentPerSecond: Math.round(((writers * perWriter) / concurrentMs) * 1000),
    catchUpPerSecond: Math.round((read / catchUpMs) * 1000),
    events: total,
  };
}

export async function run(argv: string[]): Promise<void> {
  const sequential = Number(argv[argv.indexOf('--sequential') + 1]) || 3000;
  const perWriter = Number(argv[argv.indexOf('--per-writer') + 1]) || 500;
  const writers = 8;
  printMachine();
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-es-'));
  const schema = `bench_es_${runSuffix()}`;
  try {
    log(`SQLite: ${sequential} sequential appends, ${writers} × ${perWriter} concurrent, then catch-up`);
    const sqlite = createSqliteEventStore({ path: join(dir, 'events.sqlite'), log: quiet });
    const onSqlite = await measure(sqlite, sequential, writers, perWriter);
    await sqlite.close();
    log(`PostgreSQL (schema ${schema}): the same`);
    const postgres = await createPostgresEventStore({
      connectionString: benchConfig.eventStorePostgresUrl,
      schema,
      log: quiet,
      poolSize: writers + 2,
    });
    const onPostgres = await measure(postgres, sequential, writers, perWriter);
    await postgres.close();
    const ratio = (a: number, b: number) => (b === 0 ? '' : (a / b).toFixed(2));
    printTable(
      'event store: PostgreSQL beside SQLite (same run)',
      ['figure', 'SQLite (baseline)', 'PostgreSQL', 'PostgreSQL / SQLite'],
      [
        [
          'append, one writer (events/s)',
          onSqlite.sequentialPerSecond,
          onPostgres.sequentialPerSecond,
          ratio(onPostgres.sequentialPerSecond, onSqlite.sequentialPerSecond),
        ],
        ['append p50, one writer (ms)', onSqlite.sequentialP50Ms, onPostgres.sequentialP50Ms, ''],
        [
          `append, ${writers} concurrent writers (events/s)`,
          onSqlite.concurrentPerSecond,
          onPostgres.concurrentPerSecond,
          ratio(onPostgres.concurrentPerSecond, onSqlite.concurrentPerSecond),
        ],
        [
          `catch-up of $all, ${onSqlite.events} events (events/s)`,
          onSqlite.catchUpPerSecond,
          onPostgres.catchUpPerSecond,
          ratio(onPostgres.catchUpPerSecond, onSqlite.catchUpPerSecond),
        ],
      ],
    );
    writeResults('eventstore', { sqlite: onSqlite, postgres: onPostgres, sequential, writers, perWriter });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: benchConfig.eventStorePostgresUrl });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}
