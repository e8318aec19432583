import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { eventually } from '#test-processes';
import { startReceiver } from './receiver.ts';

const failing = (accountId: string, checkId: string) => ({
  id: randomUUID(),
  accountId,
  checkId,
  checkType: 'API',
  startedAt: new Date().toISOString(),
  runLocation: 'eu-west-1',
  hasFailures: true,
  responseTime: 20000,
});

describe('webhook delivery durability and the address policy', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('resumes pending retries on schedule after the dispatcher is killed between attempts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-durable-'));
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const hook = await startReceiver((n) => (n <= 2 ? 500 : 200));
    cleanup.push(() => hook.close());
    const env = { VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true', VIGIL_WEBHOOK_RETRY_DELAY_MS: '1500' };
    let vigil: TestVigil = await startVigil({ dataDir, env });
    const account = await createAccount(vigil);
    const check = (await account.owner.post('/v1/checks', { name: 'durable', checkType: 'API' })).body;
    const channel = (
      await account.owner.post('/v1/alert-channels', { type: 'WEBHOOK', config: { name: 'd', url: `${hook.url}/d` } })
    ).body;
    await account.owner.put(`/v1/alert-channels/${channel.id}/subscriptions`, { checkId: check.id, activated: true });
    await vigil.as(vigil.ingestKey).post('/v1/check-results', [failing(account.accountId, check.id)]);
    await eventually(
      async () => hook.received.length,
      (n) => n === 1,
      20_000,
    );
    await vigil.stop(); // the dispatcher dies with a retry pending
    expect(hook.received).toHaveLength(1);
    vigil = await startVigil({ dataDir, env });
    cleanup.push(() => vigil.stop());
    await eventually(
      async () => hook.received.length,
      (n) => n === 3,
      20_000,
    );
    expect(new Set(hook.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    // The receiver answers before the dispatcher records the attempt: wait for the log to hold it.
    const log = await eventually(
      () => vigil.as(account.ownerKey).get(`/v1/alert-channels/${channel.id}/deliveries`),
      (answer) => Array.isArray(answer.body) && answer.body.length >= 3,
      20_000,
    );
    expect(log.body.map((a: { outcome: string }) => a.outcome)).toEqual(['delivered', 'failed', 'failed']);
  });

  it('refuses to deliver to 127.0.0.1 without VIGIL_WEBHOOK_ALLOW_PRIVATE, and logs the refusal', async () => {
    const hook = await startReceiver();
    cleanup.push(() => hook.close());
    const vigil = await startVigil();
    cleanup.push(() => vigil.stop());
    const account = await createAccount(vigil);
    const check = (await account.owner.post('/v1/checks', { name: 'ssrf', checkType: 'API' })).body;
    const channel = (
      await account.owner.post('/v1/alert-channels', { type: 'WEBHOOK', config: { name: 's', url: `${hook.url}/s` } })
    ).body;
    await account.owner.put(`/v1/alert-channels/${channel.id}/subscriptions`, { checkId: check.id, activated: true });
    const test = await account.owner.post(`/v1/alert-channels/${channel.id}/test`);
    expect(test.body.outcome).toBe('refused');
    expect(test.body.error).toMatch(/127\.0\.0\.1/);
    await vigil.as(vigil.ingestKey).post('/v1/check-results', [failing(account.accountId, check.id)]);
    const log = await eventually(
      async () =>
        (await account.owner.get(`/v1/alert-channels/${channel.id}/deliveries?outcome=refused`)).body as {
          error: string;
          test: boolean;
        }[],
      (list) => list.some((a) => !a.test),
      20_000,
    );
    expect(log.every((a) => /127\.0\.0\.1/.test(a.error))).toBe(true);
    expect(hook.received).toHaveLength(0);
  });
});
