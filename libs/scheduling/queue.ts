import { z } from 'zod';
import type { StateStore, WriteOp } from '#statestore';
import type { SkipReason } from './schedule.ts';

/**
 * The due-queue of one location, in the state store, shared by every runner replica there:
 * - a sorted set of check ids scored by when each is due; claimDue leases members atomically, so
 *   only one replica runs a given check window, and a replica that dies leaves it to the others
 *   once the lease ends;
 * - per check, a slot naming what the queued entry is for (the window, or the heartbeat's
 *   anchor), because a re-claimed lease no longer carries the planned time in its score.
 */
export const slotSchema = z.discriminatedUnion('kind', [
  // due: when this window's entry was first due (hand-backs and takeovers move the score, not this).
  // every, offset, late (the frequency, the check's offset in its window, the lateness allowed):
  // with them the claim itself skips a late window (claimDueRuns), without a round trip.
  z.object({
    kind: z.literal('run'),
    window: z.number().int(),
    due: z.number().optional(),
    every: z.number().int().positive().optional(),
    offset: z.number().int().min(0).optional(),
    late: z.number().int().min(0).optional(),
  }),
  z.object({ kind: z.literal('heartbeat'), anchor: z.number().int(), reported: z.number().int().min(0) }),
]);
export type Slot = z.output<typeof slotSchema>;

export interface Claimed {
  checkId: string;
  /** When it was due (for a lease taken over, when that lease ended). */
  due: number;
  /** When this claim's lease ends. */
  leaseEnds: number;
  /** Null when missing or unreadable: the entry is then scheduled afresh. */
  slot: Slot | null;
}

export interface Scheduled {
  checkId: string;
  slot: Slot;
  due: number;
  /** The check's account, written when a check is (re)placed: claims are fair across accounts. */
  group?: string;
  /** Windows skipped on the way (the runner was saturated): recorded for the check's status. */
  skipped?: { windows: number[]; reason: SkipReason };
}

export const queueKeys = (location: string) => ({
  due: `runner:due:${location}`,
  /** checkId → account, for the fair claim. */
  groups: `runner:groups:${location}`,
  slot: (checkId: string) => `runner:slot:${location}:${checkId}`,
  applied: (eventId: string) => `runner:applied:${location}:${eventId}`,
  /**
   * Windows skipped, per check: one hash per reason and five minutes (field checkId → count),
   * incremented in the same atomic step as the skip, so replicas never count a window twice.
   */
  skips: (reason: SkipReason, bucket: number) => `runner:skips:${location}:${reason}:${bucket}`,
});

const HOUR_MS = 3_600_000;
export const SKIP_BUCKET_MS = 5 * 60_000;
const BUCKETS_PER_HOUR = HOUR_MS / SKIP_BUCKET_MS;
export const skipBucket = (atMs: number) => Math.floor(atMs / SKIP_BUCKET_MS);
const REASONS: SkipReason[] = ['saturated', 'runners-down'];

export interface SkippedLastHour {
  lastHour: number;
  reason: SkipReason | null;
}

/**
 * How many windows of a check the runners of a location skipped in the last hour (in five-minute
 * buckets: the hour is the current bucket and the twelve before it), and the latest reason.
 * Reads one hash field per bucket and reason (26).
 */
export async function skippedLastHour(
  store: StateStore,
  location: string,
  checkId: string,
  _frequencyMs: number,
  nowMs: number,
): Promise<SkippedLastHour> {
  const keys = queueKeys(location);
  const now = skipBucket(nowMs);
  const buckets = Array.from({ length: BUCKETS_PER_HOUR + 1 }, (_, i) => now - i);
  const counts = await Promise.all(
    REASONS.map((reason) => Promise.all(buckets.map((b) => store.hget(keys.skips(reason, b), checkId)))),
  );
  let lastHour = 0;
  let reason: SkipReason | null = null;
  // Newest bucket first: its reason is the latest (saturated when it has both).
  buckets.forEach((_, i) =>
    REASONS.forEach((r, j) => {
      const n = Number(counts[j]![i] ?? 0);
      if (!(n > 0)) return;
      lastHour += n;
      reason ??= r;
    }),
  );
  return { lastHour, reason };
}

/** The skip buckets that have left the hour (a window of them, swept at every reconcile). */
export function staleSkipKeys(location: string, nowMs: number): string[] {
  const keys = queueKeys(location);
  const oldest = skipBucket(nowMs) - BUCKETS_PER_HOUR - 1;
  return REASONS.flatMap((reason) => Array.from({ length: 24 }, (_, i) => keys.skips(reason, oldest - i)));
}

/** What the claim needs to skip late windows itself (LateRule without the keys). */
export interface LateClaim {
  since: number;
  groups: string[];
  spareListed: boolean;
  lateCapMs?: number;
}

const APPLIED_TTL_MS = 7 * 86_400_000;
/** How many due entries a claim looks at per entry it takes, to share them out across accounts. */
const FAIR_SCAN_FACTOR = 4;
const WRITE_OPS = 6_000;

export class DueQueue {
  private readonly keys;

  constructor(
    private readonly store: StateStore,
    private readonly location: string,
  ) {
    this.keys = queueKeys(location);
  }

  /**
   * Leases up to limit due entries, then reads their slots: for callers that skip nothing, such as
   * the agents' leases.
   */
  async claim(nowMs: number, leaseMs: number, limit: number): Promise<Claimed[]> {
    const members = await this.store.claimDueFair(...this.fairClaim(nowMs, leaseMs, limit));
    if (members.length === 0) return [];
    const slots = await this.store.getMany(members.map((m) => this.keys.slot(m.member)));
    return members.map((m, i) => claimed(m.member, m.score, slots[i] ?? null, nowMs + leaseMs));
  }

  /**
   * claim, for the runner: each entry comes with its slot in the same step, and late windows
   * (slots that carry every, offset and late) are skipped and counted there, without a round trip.
   */
  async claimRuns(
    nowMs: number,
    leaseMs: number,
    limit: number,
    late: LateClaim,
  ): Promise<{ claimed: Claimed[]; skipped: number }> {
    const result = await this.store.claimDueRuns(...this.fairClaim(nowMs, leaseMs, limit), {
      slotPrefix: this.keys.slot(''),
      skipsKey: this.keys.skips('saturated', skipBucket(nowMs)),
      since: late.since,
      groups: late.groups,
      spareListed: late.spareListed,
      ...(late.lateCapMs === undefined ? {} : { lateCapMs: late.lateCapMs }),
    });
    return {
      skipped: result.skipped,
      claimed: result.claimed.map((m) => claimed(m.member, m.score, m.slot, nowMs + leaseMs)),
    };
  }

  /**
   * The arguments both claims share. Round robin across accounts among the earliest due: a
   * tenant's backlog cannot keep another's runs waiting.
   */
  private fairClaim(nowMs: number, leaseMs: number, limit: number) {
    return [this.keys.due, this.keys.groups, nowMs, leaseMs, limit, limit * FAIR_SCAN_FACTOR] as const;
  }

  /**
   * Schedules (or reschedules, ending a lease): each entry's ops all or nothing. Entries go in
   * writes of at most WRITE_OPS ops (a reconcile of 30,000 checks in one Lua call overflowed the
   * client's argument spread); an entry never straddles two writes.
   */
  async schedule(entries: Scheduled[], nowMs = Date.now()): Promise<void> {
    let ops: WriteOp[] = [];
    for (const entry of entries) {
      if (ops.length >= WRITE_OPS) {
        await this.store.write(ops);
        ops = [];
      }
      const slot = entry.slot.kind === 'run' ? { ...entry.slot, due: entry.due } : entry.slot;
      ops.push({ op: 'set', key: this.keys.slot(entry.checkId), value: JSON.stringify(slot) });
      ops.push({ op: 'zadd', key: this.keys.due, member: entry.checkId, score: entry.due });
      if (entry.group !== undefined)
        ops.push({ op: 'hset', key: this.keys.groups, field: entry.checkId, value: entry.group });
      if (entry.skipped && entry.skipped.windows.length > 0)
        ops.push({
          op: 'hincr',
          key: this.keys.skips(entry.skipped.reason, skipBucket(nowMs)),
          field: entry.checkId,
          by: entry.skipped.windows.length,
        });
    }
    if (ops.length > 0) await this.store.write(ops);
  }

  /** Hands a claimed entry back, due again at dueMs, keeping its slot. */
  async release(checkId: string, dueMs: number): Promise<void> {
    await this.store.write([{ op: 'zadd', key: this.keys.due, member: checkId, score: dueMs }]);
  }

  /** Extends a claim's lease: a leased entry's score is when its lease ends. */
  async extend(checkId: string, leaseEndsMs: number): Promise<void> {
    await this.store.write([{ op: 'zadd', key: this.keys.due, member: checkId, score: leaseEndsMs }]);
  }

  async remove(checkIds: string[]): Promise<void> {
    if (checkIds.length === 0) return;
    await this.store.write(
      checkIds.flatMap((checkId): WriteOp[] => [
        { op: 'zrem', key: this.keys.due, member: checkId },
        { op: 'del', key: this.keys.slot(checkId) },
        { op: 'hdel', key: this.keys.groups, field: checkId },
      ]),
    );
  }

  /** Every queued check id. For reconciliation, not the hot path. */
  async members(): Promise<Set<string>> {
    return new Set((await this.store.zrange(this.keys.due, 0, -1)).map((m) => m.member));
  }

  /** Each queued check's account, as written by schedule. For reconciliation, not the hot path. */
  async groups(): Promise<Record<string, string>> {
    return this.store.hgetall(this.keys.groups);
  }

  /** Names the account of checks queued before groups were written (reconciliation). */
  async setGroups(groups: Array<{ checkId: string; group: string }>): Promise<void> {
    for (let i = 0; i < groups.length; i += WRITE_OPS) {
      const chunk = groups.slice(i, i + WRITE_OPS);
      await this.store.write(
        chunk.map(({ checkId, group }): WriteOp => ({
          op: 'hset',
          key: this.keys.groups,
          field: checkId,
          value: group,
        })),
      );
    }
  }

  /** Drops the skip counts that have left the hour (the embedded store's hashes do not expire). */
  async sweepSkips(nowMs: number): Promise<void> {
    await this.store.write(staleSkipKeys(this.location, nowMs).map((key): WriteOp => ({ op: 'del', key })));
  }

  async score(checkId: string): Promise<number | null> {
    return this.store.zscore(this.keys.due, checkId);
  }

  /** True for the first replica to take a schedule change: the others leave it alone. */
  async firstToApply(eventId: string): Promise<boolean> {
    return this.store.setIfAbsent(this.keys.applied(eventId), '1', { ttlMs: APPLIED_TTL_MS });
  }
}

function claimed(checkId: string, due: number, rawSlot: string | null, leaseEnds: number): Claimed {
  return { checkId, due, leaseEnds, slot: parseSlot(rawSlot) };
}

function parseSlot(raw: string | null): Slot | null {
  if (raw === null) return null;
  try {
    const parsed = slotSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
