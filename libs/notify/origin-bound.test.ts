import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, createSecretBox } from '#core';
import { checkContext, DeliveryStore, Dispatcher, sampleAlert } from '#notify';
import { ReadModels } from '#readmodels';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

// Fresh attempts and retries share the per-origin limit: a receiver that counts the requests it
// holds at once never sees more than `perOrigin`, even while retries are due during fresh batches.
describe('dispatcher: one receiver origin, fresh attempts and retries together', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('never has more than perOrigin requests in flight to one receiver', async () => {
    let active = 0;
    let peak = 0;
    const seen = new Set<string>();
    const delivered = new Set<string>();
    let retried = 0;
    // Every first attempt to /fail is answered 500, so its retry comes from the retry loop.
    const server = createServer((req, res) => {
      active++;
      peak = Math.max(peak, active);
      req.resume();
      req.on('end', () => {
        const id = String(req.headers['webhook-id']);
        const fail = req.url === '/fail' && !seen.has(id);
        if (req.url === '/fail' && seen.has(id)) retried++;
        seen.add(id);
        setTimeout(() => {
          active--;
          if (!fail) delivered.add(id);
          res.statusCode = fail ? 500 : 200;
          res.end('ok');
        }, 20);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const vigil: TestVigil = await startVigil({ env: { VIGIL_STANDALONE_APPS: 'api,projector' } });
    cleanup.push(() => vigil.stop());
    const account = await createAccount(vigil);
    const check = (await account.owner.post('/v1/checks', { name: 'origin', checkType: 'API' })).body;
    for (const path of ['ok', 'fail']) {
      const channel = (
        await account.owner.post('/v1/alert-channels', {
          type: 'WEBHOOK',
          config: { name: path, url: `${url}/${path}` },
        })
      ).body;
      await account.owner.put(`/v1/alert-channels/${channel.id}/subscriptions`, { checkId: check.id, activated: true });
    }

    const stateStore = vigil.running.platform.stateStore;
    const readModels = new ReadModels(stateStore);
    const dispatcher = new Dispatcher({
      readModels,
      store: new DeliveryStore(stateStore),
      box: createSecretBox(Buffer.alloc(32, 1)),
      log: createLogger({ level: 'silent' }),
      timeoutMs: 5_000,
      retry: { maxRetries: 3, delayMs: 10 },
      allowPrivate: true,
      userAgent: 'Vigil/test',
      publicUrl: 'http://localhost:3000',
      region: 'local',
      concurrency: 32,
      perOrigin: 4,
      idleMs: 20,
      // Each batch of 40 runs as pipelined steps of 10, two at once, beside the retry loop.
      stepSize: 10,
    });
    dispatcher.start();
    cleanup.push(() => dispatcher.stop());
    const context = await checkContext(readModels, check.id);
    expect(context).not.toBeNull();
    // Batches one after another: the retries of each are due while the next is being sent.
    const batches = 6;
    const perBatch = 40;
    for (let b = 0; b < batches; b++)
      await dispatcher.handleAlerts(
        Array.from({ length: perBatch }, () => sampleAlert(account.accountId, context!, 'ALERT_FAILURE')),
      );
    const expected = batches * perBatch * 2;
    for (let waited = 0; delivered.size < expected && waited < 30_000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));

    expect(delivered.size).toBe(expected);
    expect(retried).toBe(batches * perBatch);
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(4);
  }, 90_000);
});
