import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStateStore, type StateStore, type WriteOp } from '#statestore';
import { DeliveryStore, type Attempt, type Delivery } from './store.ts';

/** The real in-memory SQLite store, whose writes wait for a gate while it is closed, and are counted. */
function gatedStore() {
  const store = createSqliteStateStore({ path: ':memory:' });
  const sizes: number[] = [];
  let gate: Promise<void> | undefined;
  let open: () => void = () => undefined;
  const gated: StateStore = Object.create(store) as StateStore;
  gated.write = async (ops: WriteOp[]) => {
    // Each record is five ops at most; a set of the delivery opens each one.
    sizes.push(ops.filter((op) => op.op === 'set' && op.key.startsWith('webhook:delivery:')).length);
    await gate;
    return store.write(ops);
  };
  return {
    store,
    gated,
    sizes,
    close: () => {
      gate = new Promise((resolve) => (open = resolve));
    },
    open: () => open(),
  };
}

function record(i: number): [Delivery, Attempt, number] {
  const id = `delivery-${i}`;
  const delivery: Delivery = {
    id,
    channelId: 'channel-1',
    accountId: 'account-1',
    checkId: 'check-1',
    alertType: 'ALERT_FAILURE',
    alert: { alertId: `alert-${i}` } as Delivery['alert'],
    test: false,
    attempts: 1,
    status: 'delivered',
    nextAttemptAt: null,
    createdAt: 1,
    updatedAt: 2,
    lastError: null,
  };
  const attempt: Attempt = {
    deliveryId: id,
    channelId: 'channel-1',
    checkId: 'check-1',
    alertType: 'ALERT_FAILURE',
    attempt: 1,
    at: new Date(2).toISOString(),
    durationMs: 1,
    outcome: 'delivered',
    statusCode: 200,
    error: null,
    responseBody: 'ok',
    test: false,
    nextAttemptAt: null,
  };
  return [delivery, attempt, 2];
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

// Group commits: records that come in while a write is in flight wait for company (a window of
// their own) instead of being written as soon as it returns, unless someone waits for them.
describe('DeliveryStore group commits', () => {
  let stores: ReturnType<typeof gatedStore>[] = [];
  afterEach(async () => {
    for (const s of stores) await s.store.close();
    stores = [];
  });

  /** A store whose first write (of record 0) is made and held at the gate. */
  async function firstWriteHeld() {
    const s = gatedStore();
    stores.push(s);
    const deliveries = new DeliveryStore(s.gated);
    s.close();
    const written = [deliveries.recordAttempt(...record(0), false)];
    while (s.sizes.length === 0) await turn(); // the first window ended: one write, held at the gate
    return { s, deliveries, written };
  }

  it('gathers the few records that came in during a write with the ones that follow', async () => {
    const { s, deliveries, written } = await firstWriteHeld();
    for (let i = 1; i <= 10; i++) written.push(deliveries.recordAttempt(...record(i), false));
    s.open();
    await written[0];
    await turn();
    // Before the previous behaviour's second write would have been made and returned, more come in.
    for (let i = 11; i <= 19; i++) written.push(deliveries.recordAttempt(...record(i), false));
    await Promise.all(written);
    expect(s.sizes).toEqual([1, 19]);
    const stored = await s.store.getMany(['webhook:delivery:delivery-0', 'webhook:delivery:delivery-19']);
    expect(stored.map((raw) => (JSON.parse(raw!) as Delivery).status)).toEqual(['delivered', 'delivered']);
  });

  it('writes at once what is pending when the caller flushes or a record is urgent', async () => {
    const { s, deliveries, written } = await firstWriteHeld();
    for (let i = 1; i <= 5; i++) written.push(deliveries.recordAttempt(...record(i), false));
    deliveries.flushPending(); // the batch's attempts are all made: no second window
    s.open();
    await Promise.all(written);
    expect(s.sizes).toEqual([1, 5]);

    s.close();
    const more = [deliveries.recordAttempt(...record(6), false)];
    while (s.sizes.length === 2) await turn();
    more.push(deliveries.recordAttempt(...record(7), false));
    more.push(deliveries.recordAttempt(...record(8), false, true)); // a test send waits for its record
    s.open();
    await Promise.all(more);
    expect(s.sizes).toEqual([1, 5, 1, 2]);
  });

  it('writes at once when a full group came in during the write', async () => {
    const { s, deliveries, written } = await firstWriteHeld();
    for (let i = 1; i <= 300; i++) written.push(deliveries.recordAttempt(...record(i), false));
    s.open();
    await written[0];
    await turn();
    written.push(deliveries.recordAttempt(...record(301), false));
    await Promise.all(written);
    expect(s.sizes).toEqual([1, 300, 1]);
  });

  it('settles each record with its own group: one promise per group, in order, at most 500 records each', async () => {
    const { s, deliveries, written } = await firstWriteHeld();
    for (let i = 1; i <= 1200; i++) written.push(deliveries.recordAttempt(...record(i), false));
    // Records 1-500 and 501-1000 fill a group each; 1001-1200 share the open one.
    expect(new Set(written).size).toBe(4);
    expect(written[1]).toBe(written[500]);
    expect(written[501]).not.toBe(written[500]);
    expect(written[1001]).toBe(written[1200]);
    s.open();
    await Promise.all(written);
    expect(s.sizes).toEqual([1, 500, 500, 200]);
    const stored = await s.store.getMany(['webhook:delivery:delivery-1200', 'webhook:delivery:delivery-0']);
    expect(stored.every((raw) => raw !== null)).toBe(true);
  });

  it('a failed write fails the records of its group only, and the next group is still written', async () => {
    const store = createSqliteStateStore({ path: ':memory:' });
    stores.push({ store } as ReturnType<typeof gatedStore>);
    let writes = 0;
    const failing: StateStore = Object.create(store) as StateStore;
    failing.write = async (ops: WriteOp[]) => {
      if (writes++ === 0) throw new Error('disk full');
      return store.write(ops);
    };
    const deliveries = new DeliveryStore(failing);
    const first = [deliveries.recordAttempt(...record(0), false), deliveries.recordAttempt(...record(1), false)];
    const firstSettled = await Promise.allSettled(first);
    expect(firstSettled.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    await deliveries.recordAttempt(...record(2), false, true);
    expect(await store.get('webhook:delivery:delivery-0')).toBeNull();
    expect(await store.get('webhook:delivery:delivery-2')).not.toBeNull();
  });
});
