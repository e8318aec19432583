/**
 * The state store holds read models, projection checkpoints, counters, sorted queues and
 * caches. Values are strings (callers encode JSON and validate what they read back).
 * Sorted sets order by score, then by member (byte order), like Redis.
 * A key holds one kind of value (string, hash or sorted set), as in Redis: writing it as
 * another kind (e.g. hset on a string) rejects with InternalError; set and del replace any kind.
 */
export type WriteOp =
  /**
   * The value stored is `prefix + value` when a prefix is given: a large part that many writes of
   * a batch share (one alert's JSON in each of its deliveries) crosses to the SQLite write
   * thread once per batch instead of once per write, and is never joined on the event loop.
   */
  | { op: 'set'; key: string; value: string; ttlMs?: number; prefix?: string }
  | { op: 'del'; key: string }
  | { op: 'hset'; key: string; field: string; value: string }
  | { op: 'hdel'; key: string; field: string }
  /** Adds by to a hash field holding an integer (created at 0), as HINCRBY. */
  | { op: 'hincr'; key: string; field: string; by: number }
  | { op: 'zadd'; key: string; member: string; score: number }
  | { op: 'zrem'; key: string; member: string };

export interface ScoredMember {
  member: string;
  score: number;
}

/**
 * The due-queue's rule for late entries (claimDueRuns). Each member's slot is the string at
 * slotPrefix + member; a slot of the form {"kind":"run","window":W,"due":D,"every":F,"offset":O,"late":L}
 * (other fields are dropped on a skip) is late when now - D > L. A late entry is not claimed but
 * moved to the first window W + k·F (k ≥ 1, and at least the window now is in) whose due time
 * (window + O) is not late, its slot rewritten to say so, and k counted in the hash skipsKey
 * (field member). Entries are left to the caller (claimed as usual) when their slot has another
 * form, when D < since, when their score is a lease end at least leaseMs after D (a takeover),
 * when their window ended a lease ago or more, and while their window lasts when their group is
 * spared (listed, if spareListed; else not listed).
 */
export interface LateRule {
  slotPrefix: string;
  skipsKey: string;
  since: number;
  groups: string[];
  spareListed: boolean;
  /** When set, an entry is late past min(L, lateCapMs): a saturated caller serves recent entries, not old ones. */
  lateCapMs?: number;
}

export interface ClaimedRun extends ScoredMember {
  /** The member's slot (slotPrefix + member), null when it has none. */
  slot: string | null;
}

export interface StateStore {
  /** Applies every op or none (Redis MULTI/EXEC; SQLite transaction). */
  write(ops: WriteOp[]): Promise<void>;

  get(key: string): Promise<string | null>;
  getMany(keys: string[]): Promise<(string | null)[]>;
  set(key: string, value: string, options?: { ttlMs?: number }): Promise<void>;
  /**
   * Sets every key to the same value (replacing any kind): for marks written per entity of a
   * batch, at a fraction of what one write op per key costs. Each key is set atomically; the
   * keys together are not (Redis sets them in chunks), so a failure may leave some set.
   */
  setMany(keys: readonly string[], value: string, options?: { ttlMs?: number }): Promise<void>;
  /** Sets only when the key is absent; true when it was set. For idempotency keys and locks. */
  setIfAbsent(key: string, value: string, options?: { ttlMs?: number }): Promise<boolean>;
  del(key: string): Promise<void>;

  hget(key: string, field: string): Promise<string | null>;
  hgetall(key: string): Promise<Record<string, string>>;

  /** Adds by to the counter (created at 0) and returns the new value. ttlMs applies when the key is created. */
  incr(key: string, by?: number, options?: { ttlMs?: number }): Promise<number>;
  /** Remaining time to live in ms; null when the key has no expiry or does not exist. */
  ttlMs(key: string): Promise<number | null>;

  zcard(key: string): Promise<number>;
  zscore(key: string, member: string): Promise<number | null>;
  /** Members by rank, ascending; stop is inclusive, -1 means the last. */
  zrange(key: string, start: number, stop: number): Promise<ScoredMember[]>;
  /** Members with min <= score <= max, ascending, at most limit of them. */
  zrangeByScore(key: string, min: number, max: number, limit?: number): Promise<ScoredMember[]>;
  /**
   * Leases due members of a sorted-set queue: atomically takes up to limit members with
   * score <= now, moves each to score now + leaseMs and returns them. Only one caller gets
   * a given member; one that is not completed (zrem) before the lease ends becomes due again.
   * Each returned score is the one the member had when claimed (its due time).
   */
  claimDue(key: string, now: number, leaseMs: number, limit: number): Promise<ScoredMember[]>;
  /**
   * claimDue, fair across groups: looks at up to scan due members (earliest first), reads each
   * one's group from the hash groupsKey (member → group; a member with none is in group ''), and
   * leases up to limit of them taking one per group in turn, earliest first within a group. So
   * one group's backlog at the head of the queue does not keep another group's due members
   * waiting behind it. Members not taken stay as they were. Atomic like claimDue.
   */
  claimDueFair(
    key: string,
    groupsKey: string,
    now: number,
    leaseMs: number,
    limit: number,
    scan: number,
  ): Promise<ScoredMember[]>;

  /**
   * claimDueFair that also reads each claimed member's slot, and skips late entries in the same
   * atomic step (LateRule): a late window costs no round trip and no write of the caller's.
   * skipped is the number of windows skipped.
   */
  claimDueRuns(
    key: string,
    groupsKey: string,
    now: number,
    leaseMs: number,
    limit: number,
    scan: number,
    rule: LateRule,
  ): Promise<{ claimed: ClaimedRun[]; skipped: number }>;

  /** Deletes every key (of any kind) starting with prefix; returns how many. For rebuilds, not hot paths. */
  deletePrefix(prefix: string): Promise<number>;

  ping(): Promise<void>;
  close(): Promise<void>;
}
