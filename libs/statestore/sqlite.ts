import type Database from 'better-sqlite3';
import { Sqlite, AppError, InternalError, UnavailableError, createLogger, type Logger } from '#core';
import type { ClaimedRun, LateRule, ScoredMember, StateStore, WriteOp } from './port.ts';
import { lateSkip } from './late-rule.ts';
import {
  createOffThreadWriter,
  WRITER_CHECKPOINT_PAGES,
  type OffThreadWriter,
  type ThreadMethod,
} from './sqlite-offthread.ts';
import { checkBound, checkInteger, checkOps, checkScore, checkTtl, rankWindow, wrongType } from './validate.ts';

export interface SqliteStateStoreOptions {
  /** A file path, or ':memory:' for a store that lives only as long as the process. */
  path: string;
  log?: Logger;
  /** How often expired keys are deleted; reads ignore them in between. */
  purgeIntervalMs?: number;
  /**
   * Remember, within one write transaction, which kind each key was checked or written as, and
   * skip the checks it makes redundant (default true). false is the reference path tests hold
   * the default to.
   */
  typeCache?: boolean;
  /**
   * WAL pages after which this connection's commits checkpoint (SQLite's default 1000). A page
   * changed by many commits between two checkpoints is copied into the file once.
   */
  walAutocheckpointPages?: number;
}

// A key holds one kind of value, as in Redis: a live string in kv, or rows in hashes or zsets.
// Only kv rows expire (the port gives TTLs to strings and counters only). Text compares with
// the default BINARY collation, i.e. UTF-8 byte order, which is Redis's member order.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER);
CREATE INDEX IF NOT EXISTS kv_expiry ON kv (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS hashes (key TEXT NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (key, field));
CREATE TABLE IF NOT EXISTS zsets (key TEXT NOT NULL, member TEXT NOT NULL, score REAL NOT NULL, PRIMARY KEY (key, member));
CREATE INDEX IF NOT EXISTS zsets_by_score ON zsets (key, score, member);
`;

const LIVE = '(expires_at IS NULL OR expires_at > ?)';
const INTEGER = /^-?\d+$/;

function translate(error: unknown, what: string): AppError {
  if (error instanceof AppError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (typeof code === 'string' && /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY)/.test(code)) {
    return new UnavailableError(`The state store cannot serve ${what} now: ${message}`, { cause: error });
  }
  return new InternalError(`The state store failed (${what}): ${message}`, { cause: error });
}

/**
 * The SQLite store, and for a file, write() on a worker thread of its own (same semantics, a
 * connection of its own): for large group-committed batches, which would block the event loop.
 */
export type SqliteStateStore = StateStore & {
  writeOffThread?: (ops: WriteOp[]) => Promise<void>;
  claimDueOffThread?: StateStore['claimDue'];
};

export function createSqliteStateStore(options: SqliteStateStoreOptions): SqliteStateStore {
  const log = options.log ?? createLogger({ level: 'silent' });
  let db: Database.Database;
  try {
    db = new Sqlite(options.path);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    // WAL + NORMAL survives a process crash; only an OS crash may lose the last commits.
    db.pragma('synchronous = NORMAL');
    if (options.walAutocheckpointPages !== undefined)
      db.pragma(`wal_autocheckpoint = ${Math.max(0, Math.trunc(options.walAutocheckpointPages))}`);
    db.exec(SCHEMA);
  } catch (error) {
    throw translate(error, 'open');
  }

  const sql = {
    get: db.prepare<[string, number], { value: string }>(`SELECT value FROM kv WHERE key = ? AND ${LIVE}`),
    getRow: db.prepare<[string, number], { value: string; expires_at: number | null }>(
      `SELECT value, expires_at FROM kv WHERE key = ? AND ${LIVE}`,
    ),
    upsert: db.prepare<[string, string, number | null]>(
      'INSERT INTO kv (key, value, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at',
    ),
    updateValue: db.prepare<[string, string]>('UPDATE kv SET value = ? WHERE key = ?'),
    delKv: db.prepare<[string]>('DELETE FROM kv WHERE key = ?'),
    delExpiredKv: db.prepare<[string, number]>('DELETE FROM kv WHERE key = ? AND expires_at <= ?'),
    delHash: db.prepare<[string]>('DELETE FROM hashes WHERE key = ?'),
    delZset: db.prepare<[string]>('DELETE FROM zsets WHERE key = ?'),
    hasHash: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM hashes WHERE key = ? LIMIT 1'),
    hasZset: db.prepare<[string], { one: number }>('SELECT 1 AS one FROM zsets WHERE key = ? LIMIT 1'),
    hasHashOrZset: db.prepare<[string, string], { one: number }>(
      'SELECT 1 AS one WHERE EXISTS (SELECT 1 FROM hashes WHERE key = ?) OR EXISTS (SELECT 1 FROM zsets WHERE key = ?)',
    ),
    hget: db.prepare<[string, string], { value: string }>('SELECT value FROM hashes WHERE key = ? AND field = ?'),
    hgetall: db.prepare<[string], { field: string; value: string }>('SELECT field, value FROM hashes WHERE key = ?'),
    hset: db.prepare<[string, string, string]>(
      'INSERT INTO hashes (key, field, value) VALUES (?, ?, ?) ON CONFLICT (key, field) DO UPDATE SET value = excluded.value',
    ),
    hdel: db.prepare<[string, string]>('DELETE FROM hashes WHERE key = ? AND field = ?'),
    zadd: db.prepare<[string, string, number]>(
      'INSERT INTO zsets (key, member, score) VALUES (?, ?, ?) ON CONFLICT (key, member) DO UPDATE SET score = excluded.score',
    ),
    zrem: db.prepare<[string, string]>('DELETE FROM zsets WHERE key = ? AND member = ?'),
    zcard: db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM zsets WHERE key = ?'),
    zscore: db.prepare<[string, string], { score: number }>('SELECT score FROM zsets WHERE key = ? AND member = ?'),
    zrange: db.prepare<[string, number, number], ScoredMember>(
      'SELECT member, score FROM zsets WHERE key = ? ORDER BY score, member LIMIT ? OFFSET ?',
    ),
    zrangeByScore: db.prepare<[string, number, number, number], ScoredMember>(
      'SELECT member, score FROM zsets WHERE key = ? AND score >= ? AND score <= ? ORDER BY score, member LIMIT ?',
    ),
    dueWithGroups: db.prepare<[string, string, number, number], ScoredMember & { grp: string | null }>(
      'SELECT z.member AS member, z.score AS score, h.value AS grp FROM zsets z LEFT JOIN hashes h ON h.key = ? AND h.field = z.member WHERE z.key = ? AND z.score <= ? ORDER BY z.score, z.member LIMIT ?',
    ),
    purge: db.prepare<[number]>(
      'DELETE FROM kv WHERE rowid IN (SELECT rowid FROM kv WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT 1000)',
    ),
    ping: db.prepare('SELECT 1'),
  };

  function typeOf(key: string, now: number): 'string' | 'hash' | 'zset' | 'none' {
    if (sql.get.get(key, now)) return 'string';
    if (sql.hasHash.get(key)) return 'hash';
    if (sql.hasZset.get(key)) return 'zset';
    return 'none';
  }

  /** Lets a hash or zset op through only when the key is absent or already of that kind. */
  function expectType(key: string, want: 'hash' | 'zset', op: string, now: number): void {
    const type = typeOf(key, now);
    if (type !== 'none' && type !== want) throw wrongType(key, `${op} on a key holding a ${type}`);
    if (type === 'none') sql.delExpiredKv.run(key, now);
  }

  function setString(key: string, value: string, ttl: number | undefined, now: number, known?: Known): void {
    // SET replaces a value of any kind, as in Redis; a key this transaction already made a
    // string holds no hash or zset rows.
    // One read, and the two deletes only when it finds rows: a group commit sets hundreds of
    // new keys (delivery records), and two deletes each cost about twice the read.
    if (known?.get(key) !== 'string' && sql.hasHashOrZset.get(key, key)) {
      sql.delHash.run(key);
      sql.delZset.run(key);
    }
    sql.upsert.run(key, value, ttl === undefined ? null : now + ttl);
    known?.set(key, 'string');
  }

  /**
   * Kinds this transaction has established: a key set is a string, one given a field or a member
   * is a hash or a zset until something that could empty it. We hold the write lock, so no other
   * connection changes them meanwhile. A group-committed batch writes the same index keys many
   * times; each check costs three reads and a delete.
   */
  type Known = Map<string, 'string' | 'hash' | 'zset'>;
  const useTypeCache = options.typeCache ?? true;

  function expectKnownType(key: string, want: 'hash' | 'zset', op: string, now: number, known?: Known): void {
    if (known?.get(key) === want) return;
    expectType(key, want, op, now);
  }

  function apply(op: WriteOp, now: number, known?: Known): void {
    switch (op.op) {
      case 'set':
        return setString(
          op.key,
          op.prefix === undefined ? op.value : op.prefix + op.value,
          checkTtl(op.ttlMs),
          now,
          known,
        );
      case 'del':
        sql.delKv.run(op.key);
        sql.delHash.run(op.key);
        sql.delZset.run(op.key);
        known?.delete(op.key);
        return;
      case 'hset':
        expectKnownType(op.key, 'hash', 'hset', now, known);
        sql.hset.run(op.key, op.field, op.value);
        known?.set(op.key, 'hash');
        return;
      case 'hdel':
        expectKnownType(op.key, 'hash', 'hdel', now, known);
        sql.hdel.run(op.key, op.field);
        // The last field may be gone: the key may now be of no kind.
        known?.delete(op.key);
        return;
      case 'hincr': {
        expectKnownType(op.key, 'hash', 'hincr', now, known);
        const current = sql.hget.get(op.key, op.field)?.value ?? '0';
        const next = INTEGER.test(current) ? Number(current) + op.by : NaN;
        if (!Number.isSafeInteger(next))
          throw new InternalError('State store hash field is not an integer or would overflow', {
            details: { key: op.key, field: op.field },
          });
        sql.hset.run(op.key, op.field, String(next));
        known?.set(op.key, 'hash');
        return;
      }
      case 'zadd':
        expectKnownType(op.key, 'zset', 'zadd', now, known);
        sql.zadd.run(op.key, op.member, op.score);
        known?.set(op.key, 'zset');
        return;
      case 'zrem':
        expectKnownType(op.key, 'zset', 'zrem', now, known);
        sql.zrem.run(op.key, op.member);
        known?.delete(op.key);
        return;
    }
  }

  // IMMEDIATE takes the write lock up front, so a second process waits (busy_timeout)
  // instead of failing when it tries to upgrade a read lock.
  const writeBatch = db.transaction((ops: WriteOp[], now: number) => {
    const known: Known | undefined = useTypeCache && ops.length > 1 ? new Map() : undefined;
    for (const op of ops) apply(op, now, known);
  });
  const getMany = db.transaction((keys: string[], now: number) =>
    keys.map((key) => sql.get.get(key, now)?.value ?? null),
  );
  const setIfAbsent = db.transaction((key: string, value: string, ttl: number | undefined, now: number) => {
    if (typeOf(key, now) !== 'none') return false;
    setString(key, value, ttl, now);
    return true;
  });
  const incr = db.transaction((key: string, by: number, ttl: number | undefined, now: number) => {
    const type = typeOf(key, now);
    if (type === 'hash' || type === 'zset') throw wrongType(key, `incr on a key holding a ${type}`);
    const row = sql.getRow.get(key, now);
    if (!row) {
      sql.upsert.run(key, String(by), ttl === undefined ? null : now + ttl);
      return by;
    }
    const next = INTEGER.test(row.value) ? Number(row.value) + by : NaN;
    if (!Number.isSafeInteger(next))
      throw new InternalError('State store counter is not an integer or would overflow', { details: { key } });
    sql.updateValue.run(String(next), key);
    return next;
  });
  const zrange = db.transaction((key: string, start: number, stop: number) => {
    const window = rankWindow(sql.zcard.get(key)?.n ?? 0, start, stop);
    return window ? sql.zrange.all(key, window[1], window[0]) : [];
  });
  const claimDue = db.transaction((key: string, now: number, leaseEnd: number, limit: number) => {
    const due = sql.zrangeByScore.all(key, -Infinity, now, limit);
    for (const { member } of due) sql.zadd.run(key, member, leaseEnd);
    return due;
  });

  const claimDueFair = db.transaction(
    (key: string, groupsKey: string, now: number, leaseEnd: number, limit: number, scan: number) => {
      const due = sql.dueWithGroups.all(groupsKey, key, now, scan);
      const taken = roundRobin(due, (row) => row.grp ?? '', limit);
      for (const { member } of taken) sql.zadd.run(key, member, leaseEnd);
      return taken.map(({ member, score }) => ({ member, score }));
    },
  );

  const claimDueRuns = db.transaction(
    (key: string, groupsKey: string, now: number, leaseMs: number, limit: number, scan: number, rule: LateRule) => {
      const due = sql.dueWithGroups.all(groupsKey, key, now, scan);
      const listed = new Set(rule.groups);
      const candidates: ClaimedRun[] = [];
      const groupOf = new Map<string, string>();
      let skipped = 0;
      let counted = false;
      for (const { member, score, grp } of due) {
        const slotKey = rule.slotPrefix + member;
        const slot = sql.get.get(slotKey, now)?.value ?? null;
        const skip = lateSkip(slot, score, grp ?? '', now, leaseMs, rule, listed);
        if (!skip) {
          groupOf.set(member, grp ?? '');
          candidates.push({ member, score, slot });
          continue;
        }
        sql.upsert.run(slotKey, skip.slot, null);
        sql.zadd.run(key, member, skip.due);
        if (!counted) expectType(rule.skipsKey, 'hash', 'hincr', now);
        counted = true;
        const current = Number(sql.hget.get(rule.skipsKey, member)?.value ?? '0');
        sql.hset.run(rule.skipsKey, member, String((Number.isSafeInteger(current) ? current : 0) + skip.windows));
        skipped += skip.windows;
      }
      const claimed = roundRobin(candidates, (c) => groupOf.get(c.member) ?? '', limit);
      for (const { member } of claimed) sql.zadd.run(key, member, now + leaseMs);
      return { claimed, skipped };
    },
  );

  let closed = false;
  let offThread: OffThreadWriter | undefined;
  /**
   * The write thread, started on first use. Its connection checkpoints every WRITER_CHECKPOINT_PAGES;
   * this one then only at twice that, so a small write here (a lease renewal) no longer pays on
   * the event loop for checkpointing the thread's group commits, and the WAL still stays bounded
   * when the thread is idle.
   */
  const writer = (): OffThreadWriter => {
    if (!offThread) {
      offThread = createOffThreadWriter(options.path);
      db.pragma(`wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES * 2}`);
    }
    return offThread;
  };
  /**
   * Once the write thread runs, every write goes through it, in the order made. On this
   * connection a write would wait for the thread's group commit in SQLite's busy handler, which
   * sleeps and so stops the event loop: a projection's lease renewal did, every half second, for
   * up to a commit's length. The thread runs this same store's method, so the semantics hold.
   */
  function onThread<T>(method: ThreadMethod, args: unknown[]): Promise<T> | undefined {
    if (!offThread || closed) return undefined;
    return offThread.call(method, args) as Promise<T>;
  }
  const fileBacked = options.path !== ':memory:' && options.path !== '' && !options.path.startsWith('file:');
  function run<T>(what: string, action: () => T): Promise<T> {
    if (closed) return Promise.reject(new UnavailableError('The state store is closed'));
    try {
      return Promise.resolve(action());
    } catch (error) {
      return Promise.reject(translate(error, what));
    }
  }

  function purge(): void {
    try {
      // Bounded batches keep each write lock short; stop after a few so a backlog never blocks the loop.
      for (let round = 0; round < 10 && sql.purge.run(Date.now()).changes > 0; round++);
    } catch (error) {
      log.warn({ err: error }, 'purging expired state-store keys failed');
    }
  }
  const purgeTimer = setInterval(purge, options.purgeIntervalMs ?? 60_000);
  purgeTimer.unref();

  return {
    async write(ops) {
      checkOps(ops);
      if (ops.length === 0) return;
      if (offThread && !closed) return offThread.write(ops);
      return run('write', () => writeBatch.immediate(ops, Date.now()));
    },
    get: (key) => run('get', () => sql.get.get(key, Date.now())?.value ?? null),
    getMany: (keys) => run('getMany', () => getMany(keys, Date.now())),
    async set(key, value, setOptions) {
      const ttl = checkTtl(setOptions?.ttlMs);
      const threaded = onThread<void>('set', [key, value, setOptions]);
      if (threaded) return threaded;
      return run('set', () => writeBatch.immediate([{ op: 'set', key, value, ttlMs: ttl }], Date.now()));
    },
    async setMany(keys, value, setOptions) {
      const ttlMs = checkTtl(setOptions?.ttlMs);
      await this.write(keys.map((key) => ({ op: 'set' as const, key, value, ttlMs })));
    },
    async setIfAbsent(key, value, setOptions) {
      const ttl = checkTtl(setOptions?.ttlMs);
      const threaded = onThread<boolean>('setIfAbsent', [key, value, setOptions]);
      if (threaded) return threaded;
      return run('setIfAbsent', () => setIfAbsent.immediate(key, value, ttl, Date.now()));
    },
    del: (key) =>
      onThread<void>('del', [key]) ?? run('del', () => writeBatch.immediate([{ op: 'del', key }], Date.now())),
    hget: (key, field) => run('hget', () => sql.hget.get(key, field)?.value ?? null),
    hgetall: (key) =>
      run('hgetall', () => Object.fromEntries(sql.hgetall.all(key).map((row) => [row.field, row.value]))),
    async incr(key, by = 1, incrOptions) {
      checkInteger(by, 'by');
      const ttl = checkTtl(incrOptions?.ttlMs);
      const threaded = onThread<number>('incr', [key, by, incrOptions]);
      if (threaded) return threaded;
      return run('incr', () => incr.immediate(key, by, ttl, Date.now()));
    },
    ttlMs: (key) =>
      run('ttlMs', () => {
        const now = Date.now();
        const expiresAt = sql.getRow.get(key, now)?.expires_at;
        return expiresAt === undefined || expiresAt === null ? null : expiresAt - now;
      }),
    zcard: (key) => run('zcard', () => sql.zcard.get(key)?.n ?? 0),
    zscore: (key, member) => run('zscore', () => sql.zscore.get(key, member)?.score ?? null),
    async zrange(key, start, stop) {
      checkInteger(start, 'start');
      checkInteger(stop, 'stop');
      return run('zrange', () => zrange(key, start, stop));
    },
    async zrangeByScore(key, min, max, limit) {
      checkBound(min, 'min');
      checkBound(max, 'max');
      // SQLite reads LIMIT -1 as "no limit".
      const count = limit === undefined ? -1 : checkInteger(limit, 'limit', 0);
      if (count === 0) return [];
      return run('zrangeByScore', () => sql.zrangeByScore.all(key, min, max, count));
    },
    async claimDue(key, now, leaseMs, limit) {
      checkScore(now, 'now');
      checkScore(leaseMs, 'leaseMs');
      if (checkInteger(limit, 'limit', 0) === 0) return [];
      const leaseEnd = checkScore(now + leaseMs, 'now + leaseMs');
      const threaded = onThread<ScoredMember[]>('claimDue', [key, now, leaseMs, limit]);
      if (threaded) return threaded;
      return run('claimDue', () => claimDue.immediate(key, now, leaseEnd, limit));
    },
    async claimDueFair(key, groupsKey, now, leaseMs, limit, scan) {
      checkScore(now, 'now');
      checkScore(leaseMs, 'leaseMs');
      if (checkInteger(limit, 'limit', 0) === 0) return [];
      const window = Math.max(limit, checkInteger(scan, 'scan', 0));
      const leaseEnd = checkScore(now + leaseMs, 'now + leaseMs');
      const threaded = onThread<ScoredMember[]>('claimDueFair', [key, groupsKey, now, leaseMs, limit, scan]);
      if (threaded) return threaded;
      return run('claimDueFair', () => claimDueFair.immediate(key, groupsKey, now, leaseEnd, limit, window));
    },
    async claimDueRuns(key, groupsKey, now, leaseMs, limit, scan, rule) {
      checkScore(now, 'now');
      checkScore(leaseMs, 'leaseMs');
      checkScore(rule.since, 'since');
      if (checkInteger(limit, 'limit', 0) === 0) return { claimed: [], skipped: 0 };
      const window = Math.max(limit, checkInteger(scan, 'scan', 0));
      checkScore(now + leaseMs, 'now + leaseMs');
      const threaded = onThread<{ claimed: ClaimedRun[]; skipped: number }>('claimDueRuns', [
        key,
        groupsKey,
        now,
        leaseMs,
        limit,
        scan,
        rule,
      ]);
      if (threaded) return threaded;
      return run('claimDueRuns', () => claimDueRuns.immediate(key, groupsKey, now, leaseMs, limit, window, rule));
    },
    deletePrefix: (prefix) =>
      onThread<number>('deletePrefix', [prefix]) ??
      run('deletePrefix', () =>
        db.transaction(() => {
          // substr compares bytes exactly, where LIKE and GLOB would treat % _ * ? as wildcards.
          let deleted = 0;
          for (const table of ['kv', 'hashes', 'zsets']) {
            const keys = db
              .prepare(`SELECT DISTINCT key FROM ${table} WHERE substr(key, 1, length(?)) = ?`)
              .all(prefix, prefix).length;
            db.prepare(`DELETE FROM ${table} WHERE substr(key, 1, length(?)) = ?`).run(prefix, prefix);
            deleted += keys;
          }
          return deleted;
        })(),
      ),
    ping: () => run('ping', () => void sql.ping.get()),
    writeOffThread: fileBacked
      ? async (ops) => {
          checkOps(ops);
          if (closed) throw new UnavailableError('The state store is closed');
          return writer().write(ops);
        }
      : undefined,
    claimDueOffThread: fileBacked
      ? async (key, now, leaseMs, limit) => {
          checkScore(now, 'now');
          checkScore(leaseMs, 'leaseMs');
          if (checkInteger(limit, 'limit', 0) === 0) return [];
          checkScore(now + leaseMs, 'now + leaseMs');
          if (closed) throw new UnavailableError('The state store is closed');
          return writer().claimDue(key, now, leaseMs, limit);
        }
      : undefined,
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(purgeTimer);
      await offThread?.close();
      db.close();
    },
  };
}

/** Up to limit items, one per group in turn (groups in order of first appearance), keeping order within a group. */
export function roundRobin<T>(items: T[], groupOf: (item: T) => string, limit: number): T[] {
  const lists = new Map<string, T[]>();
  for (const item of items) {
    const group = groupOf(item);
    const list = lists.get(group);
    if (list) list.push(item);
    else lists.set(group, [item]);
  }
  const out: T[] = [];
  for (let round = 0; out.length < limit; round++) {
    let any = false;
    for (const list of lists.values()) {
      const item = list[round];
      if (item === undefined) continue;
      any = true;
      out.push(item);
      if (out.length >= limit) break;
    }
    if (!any) break;
  }
  return out;
}
