import { afterAll, describe, expect, it } from 'vitest';
import { ReadModels } from '#readmodels';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { testAttempter, testDelivery } from './test-attempter.ts';
import { RetryBatch } from './retry-loop.ts';
import { sampleAlert } from './samples.ts';
import { DeliveryStore, type Delivery } from './store.ts';
import { checkContext } from './variables.ts';

/** The real read models, counting the reads a retry batch makes. */
class CountingReadModels extends ReadModels {
  channelReads = 0;
  checkReads = 0;
  override alertChannel(id: string) {
    this.channelReads++;
    return super.alertChannel(id);
  }
  override check(id: string) {
    this.checkReads++;
    return super.check(id);
  }
}

// A claimed batch of retries reads each channel and each alert's subject once; what it renders
// must be what each retry's own reads give (the path before the batch), a deleted check included.
describe('RetryBatch against per-retry reads', () => {
  let vigil: TestVigil;
  afterAll(async () => vigil?.stop());

  it('gives every delivery the channel and variables its own reads give, reading each once', async () => {
    vigil = await startVigil({ env: { VIGIL_STANDALONE_APPS: 'api,projector' } });
    const account = await createAccount(vigil);
    const checks: string[] = [];
    for (const name of ['one', 'two'])
      checks.push((await account.owner.post('/v1/checks', { name, checkType: 'API' })).body.id);
    await account.owner.post('/v1/variables', { key: 'REGION_NAME', value: 'north' });
    const channels: string[] = [];
    for (const k of [0, 1, 2]) {
      const channel = (
        await account.owner.post('/v1/alert-channels', {
          type: 'WEBHOOK',
          config: { name: `c${k}`, url: `http://127.0.0.1:9/${k}`, template: '{"region":"{{REGION_NAME}}"}' },
        })
      ).body;
      channels.push(channel.id);
    }
    const stateStore = vigil.running.platform.stateStore;
    const readModels = new CountingReadModels(stateStore);
    const attempter = testAttempter(readModels, new DeliveryStore(stateStore), 1000);
    const deliveries: Delivery[] = [];
    for (const checkId of checks) {
      const context = (await checkContext(readModels, checkId))!;
      for (let a = 0; a < 2; a++) {
        const alert = sampleAlert(account.accountId, context);
        for (const channelId of channels)
          deliveries.push(testDelivery(alert, channelId, { attempts: 1, nextAttemptAt: 0 }));
      }
    }
    // The second check is deleted: its deliveries' subject is gone on both paths.
    expect((await account.owner.delete(`/v1/checks/${checks[1]}`)).status).toBe(204);
    for (let waited = 0; (await readModels.check(checks[1]!)) !== null && waited < 5000; waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50));

    readModels.channelReads = 0;
    readModels.checkReads = 0;
    const batch = new RetryBatch(readModels, attempter);
    const batched = await Promise.all(
      deliveries.map(async (delivery) => {
        const channel = await batch.channel(delivery.channelId);
        const subject = await batch.subject(delivery);
        return { channel, subject: 'gone' in subject ? subject : await subject.variables() };
      }),
    );
    expect(readModels.channelReads).toBe(channels.length);
    expect(readModels.checkReads).toBe(2 * 2); // one per alert: 2 alerts on each of 2 checks
    for (const [i, delivery] of deliveries.entries()) {
      const subject = await attempter.subjectOf(delivery);
      expect(batched[i]!.channel).toEqual(await readModels.alertChannel(delivery.channelId));
      expect(batched[i]!.subject).toEqual('gone' in subject ? subject : await subject.variables());
    }
    expect(batched.filter((row) => 'gone' in row.subject)).toHaveLength(deliveries.length / 2);
    expect(batched.find((row) => !('gone' in row.subject))!.subject).toMatchObject({
      account: { REGION_NAME: 'north' },
    });
  }, 60_000);
});
