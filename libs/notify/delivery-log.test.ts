import { afterEach, describe, expect, it } from 'vitest';
import { seeded } from '#test-support';
import { createSqliteStateStore, type SqliteStateStore } from '#statestore';
import { sampleAlert, syntheticContext } from './samples.ts';
import { attemptMember, DeliveryStore, type Attempt, type Delivery } from './store.ts';

const alert = sampleAlert('00000000-0000-4000-8000-00000000000a', syntheticContext());

function delivery(id: string, attempts: number, status: Delivery['status']): Delivery {
  return {
    id,
    channelId: 'channel-1',
    accountId: 'account-1',
    checkId: 'check-1',
    alertType: 'ALERT_FAILURE',
    alert,
    test: false,
    attempts,
    status,
    nextAttemptAt: status === 'pending' ? 9_000_000 : null,
    createdAt: 1,
    updatedAt: 2,
    lastError: null,
  };
}

function attempt(id: string, n: number, atMs: number, outcome: Attempt['outcome']): Attempt {
  return {
    deliveryId: id,
    channelId: 'channel-1',
    checkId: 'check-1',
    alertType: 'ALERT_FAILURE',
    attempt: n,
    at: new Date(atMs).toISOString(),
    durationMs: 1,
    outcome,
    statusCode: outcome === 'delivered' ? 200 : 500,
    error: null,
    responseBody: '',
    test: false,
    nextAttemptAt: null,
  };
}

/** A record as dispatchers before the time-ordered members wrote it (member `<delivery>:<n>`). */
async function writeOldLayout(store: SqliteStateStore, d: Delivery, a: Attempt, atMs: number): Promise<void> {
  const member = `${d.id}:${a.attempt}`;
  await store.write([
    { op: 'set', key: `webhook:delivery:${d.id}`, value: JSON.stringify(d) },
    { op: 'set', key: `webhook:attempt:${member}`, value: JSON.stringify(a) },
    { op: 'zadd', key: `webhook:log:${d.channelId}`, member, score: atMs },
    { op: 'zadd', key: `webhook:log:${d.channelId}:${a.outcome}`, member, score: atMs },
  ]);
}

describe('the delivery log layout', () => {
  const stores: SqliteStateStore[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  it('names records and log entries in time order, whatever the delivery ids', () => {
    const members = [
      attemptMember('ffff-9', 1, 1_000),
      attemptMember('0000-1', 2, 1_001),
      attemptMember('8888-5', 1, 20_000),
      attemptMember('1111-0', 3, 1_800_000_000_000),
    ];
    expect([...members].sort()).toEqual(members);
    expect(members[0]).toBe('000000000001000:ffff-9:1');
  });

  it('reads records written before the new layout beside new ones, newest first, by outcome', async () => {
    const store = createSqliteStateStore({ path: ':memory:' });
    stores.push(store);
    const deliveries = new DeliveryStore(store);
    // Old layout: delivery a failed once (t=1000), delivered on its retry (t=2000); b delivered at 1500.
    await writeOldLayout(store, delivery('a', 1, 'pending'), attempt('a', 1, 1_000, 'failed'), 1_000);
    await writeOldLayout(store, delivery('b', 1, 'delivered'), attempt('b', 1, 1_500, 'delivered'), 1_500);
    await writeOldLayout(store, delivery('a', 2, 'delivered'), attempt('a', 2, 2_000, 'delivered'), 2_000);
    // New layout: c fails at 3000 and is pending a retry; a's replay (attempt 3) is delivered at 4000.
    await deliveries.recordAttempt(delivery('c', 1, 'pending'), attempt('c', 1, 3_000, 'failed'), 3_000, false, true);
    await deliveries.recordAttempt(
      delivery('a', 3, 'delivered'),
      attempt('a', 3, 4_000, 'delivered'),
      4_000,
      true,
      true,
    );

    const all = await deliveries.attempts('channel-1', { limit: 10, page: 1 });
    expect(all.total).toBe(5);
    expect(all.items.map((item) => `${item.deliveryId}:${item.attempt}:${String(item.willRetry)}`)).toEqual([
      'a:3:false',
      'c:1:true',
      'a:2:true',
      'b:1:false',
      'a:1:true',
    ]);
    expect(all.items[1]!.nextAttemptAt).toBe(new Date(9_000_000).toISOString());

    const delivered = await deliveries.attempts('channel-1', { limit: 2, page: 2 }, 'delivered');
    expect(delivered.total).toBe(3);
    expect(delivered.items.map((item) => `${item.deliveryId}:${item.attempt}`)).toEqual(['b:1']);
    const failed = await deliveries.attempts('channel-1', { limit: 10, page: 1 }, 'failed');
    expect(failed.items.map((item) => `${item.deliveryId}:${item.attempt}`)).toEqual(['c:1', 'a:1']);

    // The new records are stored under their time-ordered member.
    expect(await store.get(`webhook:attempt:${attemptMember('c', 1, 3_000)}`)).not.toBeNull();
    expect(await store.get('webhook:attempt:c:1')).toBeNull();
  });

  it('pages the whole log as the whole-log index did: old records, new ones, ties and every page size', async () => {
    const store = createSqliteStateStore({ path: ':memory:' });
    stores.push(store);
    const deliveries = new DeliveryStore(store);
    const random = seeded(26);
    const outcomes = ['delivered', 'failed', 'refused'] as const;
    // 60 records in the old layout (both indexes), then 60 new ones (per outcome only); times
    // collide on purpose, so ties order by member as a sorted set does.
    const written: { id: string; n: number; outcome: string }[] = [];
    for (let i = 0; i < 120; i++) {
      const id = `d${Math.floor(random() * 1e6).toString(16)}`;
      const outcome = outcomes[Math.floor(random() * 3)]!;
      const atMs = 1_000 + Math.floor(random() * 40) * 10;
      const status = outcome === 'failed' ? 'pending' : outcome;
      if (i < 60) await writeOldLayout(store, delivery(id, 1, status), attempt(id, 1, atMs, outcome), atMs);
      else await deliveries.recordAttempt(delivery(id, 1, status), attempt(id, 1, atMs, outcome), atMs, false, true);
      written.push({ id, n: 1, outcome });
    }
    // The reference: every record's member and score, in a sorted set's order, reversed.
    const reference = (
      await Promise.all(outcomes.map((outcome) => store.zrange(`webhook:log:channel-1:${outcome}`, 0, -1)))
    )
      .flat()
      .sort((a, b) => a.score - b.score || Buffer.compare(Buffer.from(a.member), Buffer.from(b.member)))
      .reverse();
    expect(reference).toHaveLength(120);
    // What the old reader showed for the old records alone: the whole-log index, reversed.
    const oldIndex = (await store.zrange('webhook:log:channel-1', 0, -1)).reverse();
    expect(oldIndex).toEqual(reference.filter((entry) => !/^\d{15}:/.test(entry.member)));
    for (const limit of [1, 7, 50, 200]) {
      for (let page = 1; page <= Math.ceil(120 / limit) + 1; page++) {
        const { items, total } = await deliveries.attempts('channel-1', { limit, page });
        expect(total).toBe(120);
        const expected = reference.slice((page - 1) * limit, page * limit);
        expect(items.map((item) => `${item.at}|${item.deliveryId}`)).toEqual(
          expected.map((entry) => `${new Date(entry.score).toISOString()}|${deliveryOf(entry.member)}`),
        );
      }
    }
    expect(written).toHaveLength(120);
  });
});

/** The delivery a member names: `<time>:<delivery>:<n>` now, `<delivery>:<n>` before. */
function deliveryOf(member: string): string {
  const parts = member.split(':');
  return parts.length === 3 ? parts[1]! : parts[0]!;
}
