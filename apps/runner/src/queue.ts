import { z } from 'zod';
import type { StateStore, WriteOp } from '#statestore';

/**
 * The due-queue of one location, in the state store, shared by every runner replica there:
 * - a sorted set of check ids scored by when each is due; claimDue leases members atomically, so
 *   only one replica runs a given check window, and a replica that dies leaves it to the others
 *   once the lease ends;
 * - per check, a slot naming what the queued entry is for (the window, or the heartbeat's
 *   anchor), because a re-claimed lease no longer carries the planned time in its score.
 */
export const slotSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('run'), window: z.number().int() }),
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
}

export const queueKeys = (location: string) => ({
  due: `runner:due:${location}`,
  slot: (checkId: string) => `runner:slot:${location}:${checkId}`,
  applied: (eventId: string) => `runner:applied:${location}:${eventId}`,
});

const APPLIED_TTL_MS = 7 * 86_400_000;

export class DueQueue {
  private readonly keys;

  constructor(
    private readonly store: StateStore,
    location: string,
  ) {
    this.keys = queueKeys(location);
  }

  async claim(nowMs: number, leaseMs: number, limit: number): Promise<Claimed[]> {
    const members = await this.store.claimDue(this.keys.due, nowMs, leaseMs, limit);
    if (members.length === 0) return [];
    const slots = await this.store.getMany(members.map((m) => this.keys.slot(m.member)));
    return members.map((m, i) => ({
      checkId: m.member,
      due: m.score,
      leaseEnds: nowMs + leaseMs,
      slot: parseSlot(slots[i] ?? null),
    }));
  }

  /** Schedules (or reschedules, ending a lease) in one all-or-nothing write. */
  async schedule(entries: Scheduled[]): Promise<void> {
    if (entries.length === 0) return;
    const ops: WriteOp[] = [];
    for (const entry of entries) {
      ops.push({ op: 'set', key: this.keys.slot(entry.checkId), value: JSON.stringify(entry.slot) });
      ops.push({ op: 'zadd', key: this.keys.due, member: entry.checkId, score: entry.due });
    }
    await this.store.write(ops);
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
      ]),
    );
  }

  /** Every queued check id. For reconciliation, not the hot path. */
  async members(): Promise<Set<string>> {
    return new Set((await this.store.zrange(this.keys.due, 0, -1)).map((m) => m.member));
  }

  async score(checkId: string): Promise<number | null> {
    return this.store.zscore(this.keys.due, checkId);
  }

  /** True for the first replica to take a schedule change: the others leave it alone. */
  async firstToApply(eventId: string): Promise<boolean> {
    return this.store.setIfAbsent(this.keys.applied(eventId), '1', { ttlMs: APPLIED_TTL_MS });
  }
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
