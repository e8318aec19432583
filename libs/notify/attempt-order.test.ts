import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReadModels } from '#readmodels';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { deterministicId } from './ids.ts';
import { testAttempter, testDelivery } from './test-attempter.ts';
import { sampleAlert } from './samples.ts';
import { DeliveryStore, type Attempt, type Delivery } from './store.ts';
import { checkContext } from './variables.ts';

/** The real delivery store, counting the records it is given. */
class CountingStore extends DeliveryStore {
  recorded = 0;
  override recordAttempt(delivery: Delivery, attempt: Attempt, atMs: number, queued?: boolean, urgent?: boolean) {
    this.recorded++;
    return super.recordAttempt(delivery, attempt, atMs, queued, urgent);
  }
}

// A batch's attempt frees its slot once the response is in, and its record is built in the check
// phase, after the requests that slot and the others let go are written: undici writes a request
// on a reused keep-alive socket only then. The batch still waits for the record to be durable; a
// single attempt (a test send) is recorded before it returns.
describe('Attempter: the record after the next requests', () => {
  const cleanup: (() => Promise<void>)[] = [];
  let vigil: TestVigil;
  let received = 0;
  let store: CountingStore;
  let attempter: ReturnType<typeof testAttempter>;
  let delivery: (n: number) => Promise<Delivery>;

  beforeAll(async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received++;
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    vigil = await startVigil({ env: { VIGIL_STANDALONE_APPS: 'api,projector' } });
    cleanup.push(() => vigil.stop());
    const account = await createAccount(vigil);
    const checkId = (await account.owner.post('/v1/checks', { name: 'order', checkType: 'API' })).body.id as string;
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const channelId = (await account.owner.post('/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'c', url } }))
      .body.id as string;
    const stateStore = vigil.running.platform.stateStore;
    const readModels = new ReadModels(stateStore);
    store = new CountingStore(stateStore);
    attempter = testAttempter(readModels, store);
    const context = (await checkContext(readModels, checkId))!;
    delivery = async (n) => {
      const alert = sampleAlert(account.accountId, context);
      return testDelivery(alert, channelId, { id: deterministicId(`${alert.alertId}-${n}`, channelId) });
    };
  }, 60_000);
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('returns once the response is in, and builds the record in the check phase', async () => {
    const fresh = await delivery(1);
    const records: Promise<void>[] = [];
    const before = { recorded: store.recorded, received };
    const outcome = await attempter.attempt(fresh, {}, false, records);
    expect(outcome.result.outcome).toBe('delivered');
    expect(received).toBe(before.received + 1);
    // Returned, and no record built yet: only microtasks ran since the response.
    expect(store.recorded).toBe(before.recorded);
    expect(records).toHaveLength(1);
    store.flushPending();
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(store.recorded).toBe(before.recorded + 1);
    store.flushPending();
    await Promise.all(records);
    const [stored] = await store.getMany([fresh.id]);
    expect(stored).toMatchObject({ id: fresh.id, status: 'delivered', attempts: 1 });
  });

  it('records a single attempt (a test send) before it returns', async () => {
    const single = await delivery(2);
    const before = store.recorded;
    const outcome = await attempter.attempt(single, {}, false);
    expect(outcome.result.outcome).toBe('delivered');
    expect(store.recorded).toBe(before + 1);
    const [stored] = await store.getMany([single.id]);
    expect(stored).toMatchObject({ id: single.id, status: 'delivered', attempts: 1 });
  });
});
