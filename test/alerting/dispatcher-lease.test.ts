import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, createSecretBox } from '#core';
import { checkContext, DeliveryStore, Dispatcher, sampleAlert } from '#notify';
import { ReadModels } from '#readmodels';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

// A batch whose fresh attempts outlast the crash safety-net lease (timeout + 10 s) must not be
// delivered twice by the same dispatcher's retry loop: each delivery id reaches the receiver once.
describe('dispatcher: a long fresh batch and the retry loop', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('delivers every id exactly once when the batch takes longer than the lease', async () => {
    const ids: string[] = [];
    // Each answer takes 300 ms; with one delivery at a time, 56 of them take ~17 s > the 12 s lease.
    // The 2 s client timeout leaves room for a loaded machine: a timed-out attempt is retried, and
    // that (legitimate) repeat would be indistinguishable here from a double delivery.
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        ids.push(String(req.headers['webhook-id']));
        setTimeout(() => res.end('ok'), 300);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    // No dispatcher app in the process: only the one below may attempt these deliveries.
    const vigil: TestVigil = await startVigil({ env: { VIGIL_STANDALONE_APPS: 'api,projector' } });
    cleanup.push(() => vigil.stop());
    const account = await createAccount(vigil);
    const check = (await account.owner.post('/v1/checks', { name: 'lease', checkType: 'API' })).body;
    const channel = (
      await account.owner.post('/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'l', url: `${url}/l` } })
    ).body;
    await account.owner.put(`/v1/alert-channels/${channel.id}/subscriptions`, { checkId: check.id, activated: true });

    const stateStore = vigil.running.platform.stateStore;
    const readModels = new ReadModels(stateStore);
    const deliveries = new DeliveryStore(stateStore);
    const dispatcher = new Dispatcher({
      readModels,
      store: deliveries,
      box: createSecretBox(Buffer.alloc(32, 1)),
      log: createLogger({ level: 'silent' }),
      timeoutMs: 2_000,
      retry: { maxRetries: 3, delayMs: 200 },
      allowPrivate: true,
      userAgent: 'Vigil/test',
      publicUrl: 'http://localhost:3000',
      region: 'local',
      concurrency: 1,
      idleMs: 100,
    });
    dispatcher.start();
    cleanup.push(() => dispatcher.stop());
    const context = await checkContext(readModels, check.id);
    expect(context).not.toBeNull();
    const alerts = Array.from({ length: 56 }, () => sampleAlert(account.accountId, context!, 'ALERT_FAILURE'));
    await dispatcher.handleAlerts(alerts);
    // Anything the retry loop had taken over would arrive now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    expect(ids).toHaveLength(56);
    expect(new Set(ids).size).toBe(56);
    const logged = await deliveries.attempts(channel.id, { limit: 100, page: 1 }, 'delivered');
    expect(logged.total).toBe(56);
  }, 90_000);
});
