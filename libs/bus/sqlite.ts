import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { Sqlite, AppError, InternalError, UnavailableError, type Logger } from '#core';
import { checkMessages, checkTopicName, checkTopicSpecs, partitionFor, resolveConsumeOptions } from './common.ts';
import type { BusMessage, ConsumedMessage, MessageBus } from './port.ts';
import { createGroupCoordinator, type PartitionLog } from './sqlite-groups.ts';

export interface SqliteBusOptions {
  /** File path, or ':memory:' for tests that need no durability. */
  path: string;
  log: Logger;
  /** How often idle consumers look for messages written by other processes (default 500). */
  pollIntervalMs?: number;
  /** Messages older than this, and committed by every group that reads their topic, are deleted (default 168 h). */
  retentionHours?: number;
  /** How often the retention sweep runs (default 10 minutes); 0 turns the timer off. */
  sweepIntervalMs?: number;
}

export interface SqliteMessageBus extends MessageBus {
  /** Runs the retention sweep now; returns how many messages it deleted. */
  sweep(now?: number): number;
}

interface MessageRow {
  partition: number;
  offset: number;
  key: string;
  value: string;
  headers: string | null;
  timestamp: number;
}

const schema = `
  CREATE TABLE IF NOT EXISTS bus_topics (
    name       TEXT PRIMARY KEY,
    partitions INTEGER NOT NULL
  );
  -- The next offset per partition outlives the messages, so offsets never repeat after a sweep.
  CREATE TABLE IF NOT EXISTS bus_partitions (
    topic       TEXT    NOT NULL,
    partition   INTEGER NOT NULL,
    next_offset INTEGER NOT NULL,
    PRIMARY KEY (topic, partition)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS bus_messages (
    id        INTEGER PRIMARY KEY,
    topic     TEXT    NOT NULL,
    partition INTEGER NOT NULL,
    offset    INTEGER NOT NULL,
    key       TEXT    NOT NULL,
    value     TEXT    NOT NULL,
    headers   TEXT,
    timestamp INTEGER NOT NULL,
    UNIQUE (topic, partition, offset)
  );
  CREATE TABLE IF NOT EXISTS bus_group_offsets (
    group_id    TEXT    NOT NULL,
    topic       TEXT    NOT NULL,
    partition   INTEGER NOT NULL,
    next_offset INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (group_id, topic, partition)
  ) WITHOUT ROWID;`;

/**
 * The embedded bus: an append-only log per topic-partition in one SQLite file, with consumer
 * group offsets beside it, so accepted messages and group positions survive a restart.
 * Publishing commits (synchronous=FULL) before it resolves. Consumers poll, and wake at once
 * when this process publishes. Topics never declared with ensureTopics get one partition.
 */
export function createSqliteBus(options: SqliteBusOptions): SqliteMessageBus {
  const log = options.log.child({ component: 'bus', adapter: 'sqlite' });
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const retentionMs = (options.retentionHours ?? 168) * 3_600_000;
  const db = open(options.path);

  const sql = {
    topicPartitions: db.prepare<[string], { partitions: number }>('SELECT partitions FROM bus_topics WHERE name = ?'),
    addTopic: db.prepare<[string, number]>('INSERT OR IGNORE INTO bus_topics (name, partitions) VALUES (?, ?)'),
    head: db.prepare<[string, number], { next_offset: number }>(
      'SELECT next_offset FROM bus_partitions WHERE topic = ? AND partition = ?',
    ),
    setHead: db.prepare<[string, number, number]>(
      'INSERT INTO bus_partitions (topic, partition, next_offset) VALUES (?, ?, ?) ON CONFLICT (topic, partition) DO UPDATE SET next_offset = excluded.next_offset',
    ),
    append: db.prepare<[string, number, number, string, string, string | null, number]>(
      'INSERT INTO bus_messages (topic, partition, offset, key, value, headers, timestamp) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    read: db.prepare<[string, number, number, number], MessageRow>(
      'SELECT partition, offset, key, value, headers, timestamp FROM bus_messages WHERE topic = ? AND partition = ? AND offset >= ? ORDER BY offset LIMIT ?',
    ),
    initOffset: db.prepare<[string, string, number, number, number]>(
      'INSERT OR IGNORE INTO bus_group_offsets (group_id, topic, partition, next_offset, updated_at) VALUES (?, ?, ?, ?, ?)',
    ),
    committed: db.prepare<[string, string, number], { next_offset: number }>(
      'SELECT next_offset FROM bus_group_offsets WHERE group_id = ? AND topic = ? AND partition = ?',
    ),
    commit: db.prepare<[number, number, string, string, number]>(
      'UPDATE bus_group_offsets SET next_offset = ?, updated_at = ? WHERE group_id = ? AND topic = ? AND partition = ?',
    ),
    allPartitions: db.prepare<[], { topic: string; partition: number }>('SELECT topic, partition FROM bus_partitions'),
    groupsOfTopic: db.prepare<[string], { groups: number }>(
      'SELECT COUNT(DISTINCT group_id) AS groups FROM bus_group_offsets WHERE topic = ?',
    ),
    partitionCommits: db.prepare<[string, number], { groups: number; lowest: number | null }>(
      'SELECT COUNT(*) AS groups, MIN(next_offset) AS lowest FROM bus_group_offsets WHERE topic = ? AND partition = ?',
    ),
    deleteBefore: db.prepare<[string, number, number, number]>(
      'DELETE FROM bus_messages WHERE topic = ? AND partition = ? AND offset < ? AND timestamp < ?',
    ),
  };

  const partitionCache = new Map<string, number>();
  function partitionsOf(topic: string): number {
    const cached = partitionCache.get(topic);
    if (cached !== undefined) return cached;
    // Another process may have declared it; otherwise an undeclared topic is fixed at one
    // partition from first use, so its keys never move.
    sql.addTopic.run(topic, 1);
    const partitions = sql.topicPartitions.get(topic)?.partitions ?? 1;
    partitionCache.set(topic, partitions);
    return partitions;
  }

  const appendAll = db.transaction((topic: string, messages: BusMessage[], now: number) => {
    const partitions = partitionsOf(topic);
    const heads = new Map<number, number>();
    for (const message of messages) {
      const partition = partitionFor(message.key, partitions);
      const offset = heads.get(partition) ?? sql.head.get(topic, partition)?.next_offset ?? 0;
      const headers =
        message.headers && Object.keys(message.headers).length > 0 ? JSON.stringify(message.headers) : null;
      sql.append.run(topic, partition, offset, message.key, message.value, headers, now);
      heads.set(partition, offset + 1);
    }
    for (const [partition, next] of heads) sql.setHead.run(topic, partition, next);
  });

  const wakers = new Set<() => void>();
  const partitionLog: PartitionLog = {
    partitionsOf: (topic) => guard(() => partitionsOf(topic)),
    initOffset(groupId, topic, partition, fromBeginning) {
      const start = fromBeginning ? 0 : (sql.head.get(topic, partition)?.next_offset ?? 0);
      guard(() => sql.initOffset.run(groupId, topic, partition, start, Date.now()));
    },
    committed: (groupId, topic, partition) =>
      guard(() => sql.committed.get(groupId, topic, partition)?.next_offset ?? 0),
    read: (topic, partition, fromOffset, limit) =>
      guard(() => sql.read.all(topic, partition, fromOffset, limit)).map((row) => toMessage(topic, row)),
    commit: (groupId, topic, partition, nextOffset) =>
      guard(() => sql.commit.run(nextOffset, Date.now(), groupId, topic, partition)),
    waitForPublish(ms, signal) {
      return new Promise((resolve) => {
        if (signal.aborted) return resolve();
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wakers.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        }
        wakers.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    },
  };
  const coordinator = createGroupCoordinator(partitionLog, log, pollIntervalMs);

  function sweep(now = Date.now()): number {
    ensureOpen();
    const cutoff = now - retentionMs;
    const run = db.transaction(() => {
      let deleted = 0;
      for (const { topic, partition } of sql.allPartitions.all()) {
        const groups = sql.groupsOfTopic.get(topic)?.groups ?? 0;
        const commits = sql.partitionCommits.get(topic, partition);
        // A topic nobody consumes (the DLQ) keeps messages for the retention time only. Otherwise
        // a message goes once every group reading the topic has committed past it.
        let below = Number.MAX_SAFE_INTEGER;
        if (groups > 0) below = commits && commits.groups === groups && commits.lowest !== null ? commits.lowest : 0;
        deleted += sql.deleteBefore.run(topic, partition, below, cutoff).changes;
      }
      return deleted;
    });
    const deleted = guard(() => run.immediate());
    if (deleted > 0) log.info({ deleted, retentionHours: retentionMs / 3_600_000 }, 'bus retention sweep');
    return deleted;
  }

  const sweepIntervalMs = options.sweepIntervalMs ?? 600_000;
  const sweepTimer =
    sweepIntervalMs > 0
      ? setInterval(() => {
          try {
            sweep();
          } catch (error) {
            log.warn({ err: error }, 'bus retention sweep failed');
          }
        }, sweepIntervalMs)
      : undefined;
  sweepTimer?.unref();

  let closed = false;
  function ensureOpen(): void {
    if (closed) throw new UnavailableError('the message bus is closed');
  }

  return {
    async ensureTopics(specs) {
      ensureOpen();
      checkTopicSpecs(specs);
      const declare = db.transaction(() => {
        for (const spec of specs) {
          sql.addTopic.run(spec.name, spec.partitions);
          const actual = sql.topicPartitions.get(spec.name)?.partitions ?? spec.partitions;
          if (actual !== spec.partitions)
            log.info(
              { topic: spec.name, partitions: actual, requested: spec.partitions },
              'topic exists with another partition count; kept',
            );
          partitionCache.set(spec.name, actual);
        }
      });
      guard(() => declare.immediate());
    },

    async publish(topic, messages) {
      ensureOpen();
      checkMessages(topic, messages);
      if (messages.length === 0) return;
      guard(() => appendAll.immediate(topic, messages, Date.now()));
      for (const wake of [...wakers]) wake();
    },

    async consume(consumeOptions) {
      ensureOpen();
      const resolved = resolveConsumeOptions(consumeOptions);
      resolved.topics.forEach(checkTopicName);
      return coordinator.start(resolved);
    },

    async ping() {
      ensureOpen();
      guard(() => db.prepare('SELECT 1').get());
    },

    async close() {
      if (closed) return;
      await coordinator.stopAll();
      closed = true;
      if (sweepTimer) clearInterval(sweepTimer);
      db.close();
    },

    sweep,
  };
}

function toMessage(topic: string, row: MessageRow): ConsumedMessage {
  const message: ConsumedMessage = {
    topic,
    partition: row.partition,
    offset: String(row.offset),
    timestamp: row.timestamp,
    key: row.key,
    value: row.value,
  };
  if (row.headers !== null) message.headers = JSON.parse(row.headers) as Record<string, string>;
  return message;
}

function open(path: string): Database.Database {
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const db = new Sqlite(path);
    db.pragma('journal_mode = WAL');
    // FULL: a publish that resolved survives power loss, not only a process crash.
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    db.exec(schema);
    return db;
  } catch (error) {
    throw new UnavailableError(`cannot open the message bus file ${path}`, { cause: error });
  }
}

const unavailableCodes = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOTADB|CORRUPT)/;

/** Runs a database call, turning driver errors into the project's errors. */
function guard<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    if (error instanceof AppError) throw error;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && unavailableCodes.test(code))
      throw new UnavailableError('the message bus database is unavailable', { cause: error });
    throw new InternalError('message bus database error', { cause: error });
  }
}
