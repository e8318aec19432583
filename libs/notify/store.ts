import { z } from 'zod';
import { alertEventSchema, locationAlertSchema } from '#alerting';
import type { ScoredMember, SqliteStateStore, StateStore, WriteOp } from '#statestore';
import { legacyDeliveryId } from './delivery-id.ts';
import { GroupCommit } from './group-commit.ts';

export const deliveryStatuses = ['pending', 'delivered', 'failed', 'refused'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export const deliverySchema = z.object({
  id: z.string(),
  channelId: z.string(),
  accountId: z.string(),
  /** The check's id; for an ALERT_LOCATION_* alert, the private location's. */
  checkId: z.string(),
  alertType: z.string(),
  alert: z.union([alertEventSchema, locationAlertSchema]),
  test: z.boolean().default(false),
  attempts: z.number().int().min(0),
  status: z.enum(deliveryStatuses),
  nextAttemptAt: z.number().nullable(),
  createdAt: z.number(),
  updatedAt: z.number(),
  lastError: z.string().nullable().default(null),
});
export type Delivery = z.output<typeof deliverySchema>;

const deliveryKeys = Object.keys(deliverySchema.shape);
const alertKeys = Object.keys(alertEventSchema.shape);
const locationAlertKeys = Object.keys(locationAlertSchema.shape);
const hasAll = (value: object, keys: string[]) => keys.every((key) => key in value);

/**
 * A stored delivery. Only this store writes them, from a Delivery the schema made (deliveryJson),
 * so a record with every field of today's schema, and an alert with every field of its own,
 * needs no schema pass (a retry read it once per attempt: 1.4% of the dispatcher's main thread
 * with failures). Anything else, such as a record from before a field with a default, goes
 * through the schema as before.
 */
export function readDelivery(raw: string): Delivery {
  const value = JSON.parse(raw) as Record<string, unknown> | null;
  if (
    typeof value === 'object' &&
    value !== null &&
    hasAll(value, deliveryKeys) &&
    typeof value.id === 'string' &&
    typeof value.attempts === 'number' &&
    typeof value.status === 'string' &&
    (deliveryStatuses as readonly string[]).includes(value.status) &&
    typeof value.test === 'boolean' &&
    typeof value.alert === 'object' &&
    value.alert !== null &&
    hasAll(value.alert, 'subject' in value.alert ? locationAlertKeys : alertKeys)
  )
    return value as unknown as Delivery;
  return deliverySchema.parse(value);
}

/** `{"alert":<the alert's JSON>` per alert event: one alert's deliveries (one per channel) share it. */
const alertPrefixes = new WeakMap<object, string>();

/**
 * A delivery as stored, in two parts: `prefix + value` is the same JSON document as
 * JSON.stringify(delivery), with the alert first. The prefix (the alert) is serialised once per
 * alert and is the same string for each of its deliveries, so a group commit sends it to the
 * write thread once (a prefixed set) and the event loop never joins the two. Events are not
 * changed once received, so the cached text stays true.
 */
export function deliveryParts(delivery: Delivery): { prefix?: string; value: string } {
  const alert = delivery.alert;
  if (typeof alert !== 'object' || alert === null) return { value: JSON.stringify(delivery) };
  let prefix = alertPrefixes.get(alert);
  if (prefix === undefined) alertPrefixes.set(alert, (prefix = `{"alert":${JSON.stringify(alert)}`));
  // The schema's other fields in its order, as an object of one fixed shape: a rest copy
  // (`{ alert, ...rest }`) was the costliest line of a delivery's record on the event loop.
  // A delivery holds only these (the schema strips anything else, and only this store writes them).
  const others = JSON.stringify({
    id: delivery.id,
    channelId: delivery.channelId,
    accountId: delivery.accountId,
    checkId: delivery.checkId,
    alertType: delivery.alertType,
    test: delivery.test,
    attempts: delivery.attempts,
    status: delivery.status,
    nextAttemptAt: delivery.nextAttemptAt,
    createdAt: delivery.createdAt,
    updatedAt: delivery.updatedAt,
    lastError: delivery.lastError,
  } satisfies Omit<Delivery, 'alert'>);
  return { prefix, value: `,${others.slice(1)}` };
}

/** A delivery as stored: the same JSON document as JSON.stringify(delivery), alert first. */
export function deliveryJson(delivery: Delivery): string {
  const { prefix, value } = deliveryParts(delivery);
  return prefix === undefined ? value : prefix + value;
}

export const attemptOutcomes = ['delivered', 'failed', 'refused'] as const;

export const attemptSchema = z.object({
  deliveryId: z.string(),
  channelId: z.string(),
  checkId: z.string(),
  alertType: z.string(),
  attempt: z.number().int().min(1),
  at: z.string(),
  durationMs: z.number(),
  outcome: z.enum(attemptOutcomes),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  responseBody: z.string(),
  test: z.boolean().default(false),
  /** When the next attempt was scheduled after this one (records from before it was kept have none). */
  nextAttemptAt: z.string().nullable().default(null),
});
export type Attempt = z.output<typeof attemptSchema>;

/** An attempt as the delivery log shows it: with whether another attempt follows, and when. */
export const deliveryLogEntrySchema = attemptSchema
  .extend({
    willRetry: z
      .boolean()
      .describe(
        'Whether another attempt of this delivery follows this one: scheduled (see nextAttemptAt), or already made (a newer entry)',
      ),
    nextAttemptAt: z
      .string()
      .nullable()
      .describe('When the next attempt is (or was) due, ISO 8601; null when none follows'),
  })
  .meta({ id: 'DeliveryAttempt' });
export type DeliveryLogEntry = z.output<typeof deliveryLogEntrySchema>;

/**
 * An attempt's member in the channel's logs, which also names its record (`webhook:attempt:` and
 * the member): its time first, fixed width, then the delivery and the attempt's number. Ordered
 * by time, each group commit's records and log entries land on the last pages of their indexes
 * instead of one random page each (delivery ids are hashes), so a commit rewrites a few pages
 * where it rewrote about three per delivery. Records from before it are `<delivery>:<n>`, read
 * the same way (their key is the same prefix and member), and order by their score as before.
 */
export function attemptMember(deliveryId: string, n: number, atMs: number): string {
  return `${String(Math.max(0, Math.trunc(atMs))).padStart(15, '0')}:${deliveryId}:${n}`;
}

const keys = {
  delivery: (id: string) => `webhook:delivery:${id}`,
  retryQueue: 'webhook:retry-queue',
  attempt: (member: string) => `webhook:attempt:${member}`,
  /** One outcome's log of a channel. (`webhook:log:<channel>`, every outcome's, is no longer written or read.) */
  log: (channelId: string, outcome: string) => `webhook:log:${channelId}:${outcome}`,
};

/**
 * Deliveries, their retry queue and the delivery log, in the state store so a restarted
 * dispatcher resumes every pending retry on schedule. Each change is one atomic write.
 */
export class DeliveryStore {
  private readonly groups: GroupCommit;

  /**
   * Group commits go to the SQLite store's write thread when it has one: a batch of a few hundred
   * records takes milliseconds of synchronous work that would otherwise stop the event loop (and
   * the HTTP client on it), and the thread runs it on the other core. Other writes stay in-thread.
   */
  constructor(private readonly store: StateStore) {
    const offThread = (store as SqliteStateStore).writeOffThread;
    this.groups = new GroupCommit(offThread ?? ((ops) => store.write(ops)));
  }

  /**
   * The deliveries of a batch that have no record yet, in one read. A fresh delivery is written
   * first together with its first attempt: until then the alert event that caused it is not
   * acknowledged on the bus, so a crash replays the batch and this look-up finds what is left.
   * Safe without a per-key compare-and-set because one consumer owns a check's partition; a
   * rebalance overlap can at worst attempt a delivery twice, with the same webhook-id. A delivery
   * whose id is ordered by time is also looked up under the id it had before (legacyDeliveryId),
   * in the same read: an alert recorded by an older dispatcher and replayed after the upgrade
   * is found, not sent again under a new id.
   */
  async unseen(deliveries: Delivery[]): Promise<Delivery[]> {
    if (deliveries.length === 0) return [];
    const lookups = deliveries.map((d) => keys.delivery(d.id));
    const legacy: number[] = [];
    for (let i = 0; i < deliveries.length; i++) {
      const id = legacyDeliveryId(deliveries[i]!);
      if (id !== null) {
        legacy.push(i);
        lookups.push(keys.delivery(id));
      }
    }
    const existing = await this.store.getMany(lookups);
    const seen = existing.slice(0, deliveries.length).map((raw) => raw !== null);
    for (let j = 0; j < legacy.length; j++) if (existing[deliveries.length + j] !== null) seen[legacy[j]!] = true;
    return deliveries.filter((_, i) => !seen[i]);
  }

  async getMany(ids: string[]): Promise<(Delivery | null)[]> {
    if (ids.length === 0) return [];
    const raws = await this.store.getMany(ids.map((id) => keys.delivery(id)));
    return raws.map((raw) => (raw === null ? null : readDelivery(raw)));
  }

  async get(id: string): Promise<Delivery | null> {
    const raw = await this.store.get(keys.delivery(id));
    return raw === null ? null : readDelivery(raw);
  }

  /** Leases due retries to this dispatcher; another one gets them only after the lease ends. */
  async claimDue(now: number, leaseMs: number, limit: number): Promise<string[]> {
    const claim = (this.store as SqliteStateStore).claimDueOffThread ?? this.store.claimDue.bind(this.store);
    return (await claim(keys.retryQueue, now, leaseMs, limit)).map((entry) => entry.member);
  }

  /** When the next retry is due, if any: the retry loop sleeps until then. */
  async nextDue(): Promise<number | null> {
    const [first] = await this.store.zrange(keys.retryQueue, 0, 0);
    return first ? first.score : null;
  }

  /**
   * Records an attempt and the delivery's new state (and its place in the queue) together.
   * `queued: false` says the delivery was never in the retry queue (a fresh first attempt), so
   * there is nothing to take out of it when it is done.
   */
  recordAttempt(
    delivery: Delivery,
    attempt: Attempt,
    atMs: number,
    queued = true,
    /** Someone waits for this record (a test send through the API): write it without the window. */
    urgent = false,
  ): Promise<void> {
    // Not async: every record of a group commit shares its group's promise (no promise of its own).
    let stored: ReturnType<typeof deliveryParts>;
    try {
      stored = deliveryParts(delivery);
    } catch (error) {
      // Handled as a group's promise is: the caller may collect it and await it later.
      const failed = Promise.reject(error);
      failed.catch(() => undefined);
      return failed;
    }
    const member = attemptMember(delivery.id, attempt.attempt, atMs);
    // The log is one index per outcome; the channel's whole log is read as their merge (see attempts).
    const ops: WriteOp[] = [
      { op: 'set', key: keys.delivery(delivery.id), value: stored.value, prefix: stored.prefix },
      { op: 'set', key: keys.attempt(member), value: JSON.stringify(attempt) },
      { op: 'zadd', key: keys.log(delivery.channelId, attempt.outcome), member, score: atMs },
    ];
    if (delivery.status === 'pending' && delivery.nextAttemptAt !== null)
      ops.push({ op: 'zadd', key: keys.retryQueue, member: delivery.id, score: delivery.nextAttemptAt });
    else if (queued) ops.push({ op: 'zrem', key: keys.retryQueue, member: delivery.id });
    return this.groups.add(ops, urgent);
  }

  /** Writes what waits for the group commit's window now: the caller has nothing more to add. */
  flushPending(): void {
    this.groups.flushPending();
  }

  /** Drops a delivery from the queue (it was finished elsewhere, or its channel is gone). */
  async dequeue(id: string): Promise<void> {
    await this.store.write([{ op: 'zrem', key: keys.retryQueue, member: id }]);
  }

  /** Puts a finished delivery back in the queue for an attempt now (replay). */
  async requeue(delivery: Delivery, now: number): Promise<void> {
    const next = { ...delivery, status: 'pending' as const, nextAttemptAt: now, updatedAt: now };
    await this.store.write([
      { op: 'set', key: keys.delivery(delivery.id), value: deliveryJson(next) },
      { op: 'zadd', key: keys.retryQueue, member: delivery.id, score: now },
    ]);
  }

  /** One page of one log index, newest first. */
  private async newestOf(index: string, page: { limit: number; page: number }) {
    const total = await this.store.zcard(index);
    const stop = total - 1 - (page.page - 1) * page.limit;
    const start = Math.max(0, stop - page.limit + 1);
    if (stop < 0) return { members: [], total };
    return { members: (await this.store.zrange(index, start, stop)).reverse(), total };
  }

  /**
   * One page of the channel's whole log: the merge of its per-outcome indexes. Every attempt is
   * in exactly one of them, by the same member and score it had in the whole-log index that
   * dispatchers before kept as well (and no longer write: one sorted-set row fewer per attempt,
   * about a fifth of the write thread's work per delivery), so this reads old and new records
   * alike, in the same order. A page takes each index's newest up to its end and merges them.
   */
  private async newestOfAll(channelId: string, page: { limit: number; page: number }) {
    const indexes = attemptOutcomes.map((outcome) => keys.log(channelId, outcome));
    const counts = await Promise.all(indexes.map((index) => this.store.zcard(index)));
    const total = counts.reduce((sum, n) => sum + n, 0);
    const skip = (page.page - 1) * page.limit;
    if (skip >= total) return { members: [], total };
    const end = skip + page.limit;
    const newest = await Promise.all(
      indexes.map((index, i) =>
        counts[i]! === 0
          ? Promise.resolve([])
          : this.store.zrange(index, Math.max(0, counts[i]! - end), counts[i]! - 1),
      ),
    );
    return { members: newest.flat().sort(newestFirst).slice(skip, end), total };
  }

  /** The channel's attempts, newest first, optionally only one outcome. */
  async attempts(
    channelId: string,
    page: { limit: number; page: number },
    outcome?: string,
  ): Promise<{ items: DeliveryLogEntry[]; total: number }> {
    const { members, total } =
      outcome === undefined
        ? await this.newestOfAll(channelId, page)
        : await this.newestOf(keys.log(channelId, outcome), page);
    const raws = await this.store.getMany(members.map((m) => keys.attempt(m.member)));
    const items = raws.filter((raw): raw is string => raw !== null).map((raw) => attemptSchema.parse(JSON.parse(raw)));
    const ids = [...new Set(items.map((item) => item.deliveryId))];
    const deliveries = new Map(
      (await this.getMany(ids)).flatMap((delivery) => (delivery ? [[delivery.id, delivery] as const] : [])),
    );
    return { items: items.map((item) => logEntry(item, deliveries.get(item.deliveryId))), total };
  }
}

/** Newest first: by score, then member, both descending (a sorted set's order, reversed). */
function newestFirst(a: ScoredMember, b: ScoredMember): number {
  if (a.score !== b.score) return b.score - a.score;
  // Members compare as the stores order them, by their UTF-8 bytes.
  return a.member === b.member ? 0 : Buffer.compare(Buffer.from(b.member), Buffer.from(a.member));
}

/**
 * The latest attempt of a delivery reads the delivery's live state (a replay or a lease may have
 * moved its schedule since); an older one was followed by another attempt.
 */
function logEntry(attempt: Attempt, delivery: Delivery | undefined): DeliveryLogEntry {
  if (delivery && delivery.attempts === attempt.attempt) {
    const pending = delivery.status === 'pending' && delivery.nextAttemptAt !== null;
    return {
      ...attempt,
      willRetry: pending,
      nextAttemptAt: pending ? new Date(delivery.nextAttemptAt!).toISOString() : null,
    };
  }
  if (delivery && delivery.attempts > attempt.attempt) return { ...attempt, willRetry: true };
  return { ...attempt, willRetry: attempt.nextAttemptAt !== null };
}
