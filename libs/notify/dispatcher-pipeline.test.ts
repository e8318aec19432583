import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertEvent } from '#alerting';
import { createLogger, createSecretBox } from '#core';
import { checkContext, deterministicId, DeliveryStore, Dispatcher, sampleAlert } from '#notify';
import { attemptRecord } from './attempt-record.ts';
import { testDelivery } from './test-attempter.ts';
import { ReadModels } from '#readmodels';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

// handleAlerts runs its events in steps, two at once: a step reads which deliveries are recorded
// while the step beside it has not written its records yet. A repeated alert event (the bus and
// the alerter are at-least-once) must still be delivered once.
describe('dispatcher: pipelined steps of one alert batch', () => {
  const cleanup: (() => Promise<void>)[] = [];
  const arrivals = new Map<string, number>();
  let inFlight = 0;
  let peak = 0;
  let url = '';
  let vigil: TestVigil;
  let checkId = '';
  let accountId = '';
  const channels = 3;
  const channelIds: string[] = [];

  beforeAll(async () => {
    const server = createServer((req, res) => {
      peak = Math.max(peak, ++inFlight);
      req.resume();
      req.on('end', () => {
        const id = String(req.headers['webhook-id']);
        arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
        setTimeout(() => {
          inFlight--;
          res.end('ok');
        }, 2);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    vigil = await startVigil({ env: { VIGIL_STANDALONE_APPS: 'api,projector' } });
    cleanup.push(() => vigil.stop());
    const account = await createAccount(vigil);
    accountId = account.accountId;
    checkId = (await account.owner.post('/v1/checks', { name: 'pipeline', checkType: 'API' })).body.id;
    for (let k = 0; k < channels; k++) {
      const channel = (
        await account.owner.post('/v1/alert-channels', {
          type: 'WEBHOOK',
          config: { name: `c${k}`, url: `${url}/${k}` },
        })
      ).body;
      channelIds.push(channel.id);
      await account.owner.put(`/v1/alert-channels/${channel.id}/subscriptions`, { checkId, activated: true });
    }
  }, 60_000);
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  const dispatcher = (store: DeliveryStore, readModels: ReadModels) =>
    new Dispatcher({
      readModels,
      store,
      box: createSecretBox(Buffer.alloc(32, 1)),
      log: createLogger({ level: 'silent' }),
      timeoutMs: 5_000,
      retry: { maxRetries: 3, delayMs: 10 },
      allowPrivate: true,
      userAgent: 'Vigil/test',
      publicUrl: 'http://localhost:3000',
      region: 'local',
      // The per-origin bound above the total, so that only the total can hold the two steps to 8.
      concurrency: 8,
      perOrigin: 16,
      stepSize: 20,
      pipelineDepth: 2,
    });

  it('delivers an alert repeated in the same step or in the step beside it once, and keeps the bound', async () => {
    const stateStore = vigil.running.platform.stateStore;
    const readModels = new ReadModels(stateStore);
    const store = new DeliveryStore(stateStore);
    const context = await checkContext(readModels, checkId);
    expect(context).not.toBeNull();
    const alerts = Array.from({ length: 100 }, () => sampleAlert(accountId, context!, 'ALERT_FAILURE'));
    // Each alert again 20 events later (the next step, which runs beside its own), and one twice in a row.
    const events: AlertEvent[] = [];
    for (let i = 0; i < alerts.length; i++) {
      events.push(alerts[i]!);
      if (i >= 20) events.push(alerts[i - 20]!);
    }
    events.push(alerts[99]!, alerts[99]!);
    arrivals.clear();
    await dispatcher(store, readModels).handleAlerts(events);

    expect(arrivals.size).toBe(alerts.length * channels);
    expect([...arrivals.values()].filter((count) => count > 1)).toEqual([]);
    // The two steps together keep to the dispatcher's 8 in flight (16 without the shared total).
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(8);
    // Every delivery is recorded once it resolved: a replay of the whole batch sends nothing.
    await dispatcher(store, readModels).handleAlerts(events);
    expect(arrivals.size).toBe(alerts.length * channels);
    expect([...arrivals.values()].filter((count) => count > 1)).toEqual([]);
  }, 60_000);

  it('acknowledges a batch that repeats alerts another batch is sending only once those are recorded', async () => {
    const stateStore = vigil.running.platform.stateStore;
    const readModels = new ReadModels(stateStore);
    const store = new DeliveryStore(stateStore);
    const context = await checkContext(readModels, checkId);
    // One step each (stepSize 20).
    const alerts = Array.from({ length: 20 }, () => sampleAlert(accountId, context!, 'ALERT_FAILURE'));
    arrivals.clear();
    const shared = dispatcher(store, readModels);
    // Two handler calls at once (two partitions' batches): the second finds every delivery in flight.
    const first = shared.handleAlerts(alerts);
    const second = shared.handleAlerts(alerts).then(async () => {
      const ids = [...arrivals.keys()];
      // Resolved, so every delivery it was given is sent and recorded (without the wait: 60 were not).
      return (
        (await store.getMany(ids)).filter((delivery) => delivery === null).length +
        (alerts.length * channels - ids.length)
      );
    });
    await first;
    expect(await second).toBe(0);
    expect(arrivals.size).toBe(alerts.length * channels);
    expect([...arrivals.values()].filter((count) => count > 1)).toEqual([]);
  }, 60_000);

  it('finds an alert recorded before delivery ids were ordered by time, and sends the rest under ordered ids', async () => {
    const stateStore = vigil.running.platform.stateStore;
    const readModels = new ReadModels(stateStore);
    const store = new DeliveryStore(stateStore);
    const context = await checkContext(readModels, checkId);
    const alerts = Array.from({ length: 10 }, () => sampleAlert(accountId, context!, 'ALERT_FAILURE'));
    // An older dispatcher recorded the first half (under their version-5 ids), and crashed before
    // the acknowledgement: the bus hands the whole batch to the upgraded dispatcher.
    for (const alert of alerts.slice(0, 5))
      for (const channelId of channelIds) {
        const legacy = testDelivery(alert, channelId, { id: deterministicId(alert.alertId, channelId) });
        const result = {
          outcome: 'delivered' as const,
          statusCode: 200,
          durationMs: 1,
          responseBody: 'ok',
          requestHeaders: {},
        };
        const { next, attempt } = attemptRecord(legacy, result, new Date(), Date.now(), { maxRetries: 0, delayMs: 0 });
        await store.recordAttempt(next, attempt, Date.now(), false, true);
      }
    // The account's variables are read once for the step's alerts, not once per alert.
    let variableReads = 0;
    const variables = readModels.variables.bind(readModels);
    readModels.variables = (...args) => {
      variableReads++;
      return variables(...args);
    };
    arrivals.clear();
    await dispatcher(store, readModels).handleAlerts(alerts);
    expect(variableReads).toBe(1);
    expect(arrivals.size).toBe(5 * channels);
    const sent = [...arrivals.keys()].sort();
    const expected = alerts
      .slice(5)
      .flatMap((alert) => {
        const time = Date.parse(alert.startedAt).toString(16).padStart(12, '0');
        return channelIds.map((channelId) => ({ time, legacy: deterministicId(alert.alertId, channelId) }));
      })
      // The ordered id: the alert's start in ms, version 8, then the same hash as before.
      .map(({ time, legacy }) => `${time.slice(0, 8)}-${time.slice(8)}-8${legacy.slice(15)}`)
      .sort();
    expect(sent).toEqual(expected);
  }, 60_000);
});
