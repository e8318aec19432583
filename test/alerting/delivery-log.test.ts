import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { eventually } from '#test-processes';
import { startReceiver, type Receiver } from './receiver.ts';

interface Entry {
  deliveryId: string;
  attempt: number;
  at: string;
  outcome: string;
  willRetry: boolean;
  nextAttemptAt: string | null;
}

const RETRY_DELAY_MS = 2500;

// Issue 14: the delivery log says whether a failed delivery will be retried, and when.
describe('delivery log: willRetry and nextAttemptAt', () => {
  let vigil: TestVigil;
  let hook: Receiver;
  beforeAll(async () => {
    hook = await startReceiver(() => 503);
    vigil = await startVigil({
      env: {
        VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
        VIGIL_WEBHOOK_RETRY_DELAY_MS: String(RETRY_DELAY_MS),
        VIGIL_WEBHOOK_MAX_RETRIES: '1',
      },
    });
  });
  afterAll(async () => {
    await vigil?.stop();
    await hook?.close();
  });

  it('shows the scheduled retry, then none once retries are used up, and a replay as scheduled again', async () => {
    const account = await createAccount(vigil);
    const check = (await account.owner.post('/v1/checks', { name: 'log', checkType: 'API' })).body;
    const channel = (
      await account.owner.post('/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'l', url: `${hook.url}/l` } })
    ).body;
    await account.owner.put(`/v1/alert-channels/${channel.id}/subscriptions`, { checkId: check.id, activated: true });
    await vigil.as(vigil.ingestKey).post('/v1/check-results', [
      {
        id: randomUUID(),
        accountId: account.accountId,
        checkId: check.id,
        checkType: 'API',
        startedAt: new Date().toISOString(),
        runLocation: 'eu-west-1',
        hasFailures: true,
        responseTime: 100,
      },
    ]);
    const log = async () =>
      (await account.owner.get<Entry[]>(`/v1/alert-channels/${channel.id}/deliveries`)).body as Entry[];

    // After the first failure: a retry is scheduled, RETRY_DELAY_MS after the attempt ended.
    const [first] = await eventually(log, (entries) => entries.length >= 1, 20_000, 100);
    expect(first).toMatchObject({ attempt: 1, outcome: 'failed', willRetry: true });
    const due = Date.parse(first!.nextAttemptAt!) - Date.parse(first!.at);
    expect(due).toBeGreaterThanOrEqual(RETRY_DELAY_MS);
    expect(due).toBeLessThan(RETRY_DELAY_MS + 5_000);

    // After the last allowed attempt: nothing follows it; the first entry still says a retry followed.
    const two = await eventually(log, (entries) => entries.length === 2, 20_000, 100);
    expect(two[0]).toMatchObject({ attempt: 2, outcome: 'failed', willRetry: false, nextAttemptAt: null });
    expect(two[1]).toMatchObject({ attempt: 1, willRetry: true, nextAttemptAt: first!.nextAttemptAt });

    // A replay schedules one more attempt now: the latest entry says so until it is made.
    const before = Date.now();
    const replay = await account.owner.post(`/v1/alert-channels/${channel.id}/deliveries/${first!.deliveryId}/retry`);
    expect(replay.status).toBe(202);
    const three = await eventually(log, (entries) => entries.length === 3, 20_000, 100);
    expect(three[0]).toMatchObject({ attempt: 3, willRetry: false, nextAttemptAt: null });
    expect(Date.parse(three[0]!.at)).toBeGreaterThanOrEqual(before - 1000);
    expect(three[1]).toMatchObject({ attempt: 2, willRetry: true });
  }, 60_000);

  it('documents both fields in the OpenAPI response of the delivery log', async () => {
    const doc = (await vigil.as(null).get('/openapi.json')).body as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      components?: { schemas?: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
    };
    const text = JSON.stringify(doc.paths['/v1/alert-channels/{id}/deliveries']?.get?.responses['200']);
    expect(text).toContain('DeliveryAttempt');
    const schema = doc.components?.schemas?.DeliveryAttempt;
    expect(Object.keys(schema?.properties ?? {})).toEqual(expect.arrayContaining(['willRetry', 'nextAttemptAt']));
    expect(schema?.required).toEqual(expect.arrayContaining(['willRetry', 'nextAttemptAt']));
  });
});
