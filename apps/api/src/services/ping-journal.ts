import { Worker } from 'node:worker_threads';
import type { AnalyticsStore } from '#analytics';
import type { MessageBus } from '#bus';
import { Sqlite, sqliteDriverPath, UnavailableError, type Logger } from '#core';
import type { CheckResult } from '#domain';
import { parseCheckResultFast, parseJson, toMessages, type ResultSink } from '#pipeline';

/**
 * The appending side runs in a worker thread, so the fsync of each commit (tens of ms on a busy
 * disk) never blocks the event loop that parses the next pings. It takes every batch queued since
 * its last commit into one transaction: group commit. Plain JavaScript given as source, so it
 * runs the same from the TypeScript sources and from the esbuild bundle.
 */
const APPENDER = `
const { parentPort, workerData, receiveMessageOnPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('journal_mode = WAL');
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = FULL');
const insert = db.prepare('INSERT INTO pings (value) VALUES (?)');
const append = db.transaction((batches) => {
  for (const batch of batches) for (const value of batch.values) insert.run(value);
});
parentPort.on('message', (first) => {
  if (first === 'close') { db.close(); parentPort.close(); return; }
  const batches = [first];
  for (let next = receiveMessageOnPort(parentPort); next && next.message !== 'close'; next = receiveMessageOnPort(parentPort))
    batches.push(next.message);
  let error;
  try { append(batches); } catch (caught) { error = String((caught && caught.message) || caught); }
  for (const batch of batches) parentPort.postMessage({ id: batch.id, error });
});
`;

const DRAIN_DELAY_MS = 200;
const SCHEMA = 'CREATE TABLE IF NOT EXISTS pings (seq INTEGER PRIMARY KEY AUTOINCREMENT, value TEXT NOT NULL)';

export interface PingJournalOptions {
  /** The journal's SQLite file (in DATA_DIR). */
  path: string;
  analytics: AnalyticsStore;
  bus: MessageBus;
  /** Where results go after the analytics store: the alerter reads them there. */
  topic: string;
  dlqTopic: string;
  log: Logger;
  /** Most results per drain step (default 5000). */
  drainBatch?: number;
}

export interface PingJournal {
  /** Resolves once the results are committed (fsync) to the journal. */
  sink: ResultSink;
  /** Stops taking pings, drains what it can, closes the file and the worker. */
  close(): Promise<void>;
}

/**
 * Embedded only. A ping is durable once its batch is committed to `pings.sqlite`
 * (synchronous=FULL), and is answered then. A drain moves journaled results into DuckDB and onto
 * the bus (for the alerter) in large batches, off the answer path, and deletes them only after
 * both: a kill -9 at any point leaves them in the journal, and the next start drains them
 * (at-least-once; the analytics insert ignores ids it has, and alerting tolerates a repeat).
 */
export function openPingJournal(options: PingJournalOptions): PingJournal {
  const log = options.log.child({ component: 'ping-journal' });
  const drainBatch = options.drainBatch ?? 5000;
  const db = new Sqlite(options.path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  // This connection only reads and deletes: a delete lost to an OS crash means a repeat, not a loss.
  db.pragma('synchronous = NORMAL');
  db.exec(SCHEMA);
  const oldest = db.prepare<[number], { seq: number; value: string }>(
    'SELECT seq, value FROM pings ORDER BY seq LIMIT ?',
  );
  const remove = db.prepare<[number]>('DELETE FROM pings WHERE seq <= ?');

  const driver = sqliteDriverPath;
  const worker = new Worker(APPENDER, { eval: true, workerData: { path: options.path, driver } });
  const waiting = new Map<number, { resolve: () => void; reject: (error: unknown) => void }>();
  let nextId = 0;
  let broken: Error | undefined;
  let closing = false;
  let timer: NodeJS.Timeout | undefined;
  let draining: Promise<void> | undefined;
  let failures = 0;
  // Unanswered pings hold nothing up at exit: they were never acknowledged.
  worker.unref();
  worker.on('message', ({ id, error }: { id: number; error?: string }) => {
    const entry = waiting.get(id);
    waiting.delete(id);
    if (error) entry?.reject(new UnavailableError(`The ping journal cannot append: ${error}`));
    else entry?.resolve();
    // Every analytics insert has a fixed cost, so the drain waits to take a few hundred ms of pings at once.
    schedule(DRAIN_DELAY_MS);
  });
  const fail = (error: Error) => {
    broken = error;
    log.error({ err: error }, 'ping journal worker stopped');
    for (const entry of waiting.values()) entry.reject(new UnavailableError('The ping journal is unavailable'));
    waiting.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => {
    if (!closing) fail(new Error(`worker exited with ${code}`));
  });

  function schedule(delayMs: number): void {
    if (timer || draining || closing) return;
    timer = setTimeout(() => {
      timer = undefined;
      draining = drain().then((retryMs) => {
        draining = undefined;
        if (retryMs !== undefined) schedule(retryMs);
      });
    }, delayMs);
  }

  /** Moves journaled results on until none is left; on failure, the delay before the next try. */
  async function drain(): Promise<number | undefined> {
    try {
      for (let rows = oldest.all(drainBatch); rows.length > 0; rows = oldest.all(drainBatch)) {
        await deliver(rows);
        remove.run(rows[rows.length - 1]!.seq);
        if (closing && rows.length < drainBatch) break;
      }
      failures = 0;
      return undefined;
    } catch (error) {
      failures += 1;
      log.warn({ err: error, attempt: failures }, 'ping journal drain failed; retrying');
      return Math.min(10_000, 200 * 2 ** Math.min(failures, 6));
    }
  }

  /** Results read back are validated like any other; a record that fails goes to the DLQ. */
  async function deliver(rows: { seq: number; value: string }[]): Promise<void> {
    const valid: CheckResult[] = [];
    const invalid: { key: string; value: string; headers: Record<string, string> }[] = [];
    for (const row of rows) {
      const parsed = parseCheckResultFast(parseJson(row.value));
      if (parsed.ok) valid.push(parsed.value);
      else
        invalid.push({ key: 'unkeyed', value: row.value, headers: { reason: parsed.message, source: 'ping-journal' } });
    }
    if (invalid.length > 0) {
      await options.bus.publish(options.dlqTopic, invalid);
      log.warn({ count: invalid.length, first: invalid[0]!.headers.reason }, 'invalid ping results sent to the DLQ');
    }
    if (valid.length === 0) return;
    await options.analytics.insert(valid);
    await options.bus.publish(options.topic, toMessages(valid));
  }

  // Whatever a previous process journaled but had not drained when it died.
  schedule(0);

  return {
    sink: {
      accept(results) {
        if (broken || closing) return Promise.reject(new UnavailableError('The ping journal is unavailable'));
        const id = nextId++;
        return new Promise<void>((resolve, reject) => {
          waiting.set(id, { resolve, reject });
          worker.postMessage({ id, values: results.map((result) => JSON.stringify(result)) });
        });
      },
    },
    async close() {
      closing = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await draining;
      // What is left stays journaled for the next start; try once to hand it on now.
      if (!broken) await drain();
      worker.postMessage('close');
      await new Promise<void>((resolve) => {
        if (broken) resolve();
        else worker.once('exit', () => resolve());
      });
      db.close();
    },
  };
}
