import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSchema, streamNames } from '#domain';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

type Account = Awaited<ReturnType<typeof createAccount>>;

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 20_000;
  let last: T = await read();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`${what}: never happened; last ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    last = await read();
  }
  return last;
}

/**
 * Issue 23, item 6, end to end on the standalone process: the runner watches an external check
 * that asks for NO_DATA alerts like a heartbeat whose pings are its results; after two silent
 * frequency windows the alerter sends ALERT_NO_DATA through the normal alert path, and the first
 * result through the API ends it with ALERT_NO_DATA_RECOVERY. The checks are recorded as made
 * 3 minutes ago (their CheckCreated events carry that time), so no test waits out two windows.
 */
describe('NO_DATA alerts for external checks', () => {
  let vigil: TestVigil;
  let a: Account;

  beforeAll(async () => {
    vigil = await startVigil();
    a = await createAccount(vigil);
  });
  afterAll(async () => vigil?.stop());

  /** An external 1-minute API check as if created `minutesAgo` minutes ago. */
  async function externalCheck(name: string, noDataAlerts: boolean, minutesAgo: number): Promise<string> {
    const id = randomUUID();
    const at = new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const check = checkSchema.parse({
      id,
      name,
      checkType: 'API',
      frequency: 1,
      degradedResponseTime: 5000,
      maxResponseTime: 20000,
      noDataAlerts,
    });
    await vigil.running.platform.eventStore.append(
      streamNames.check(id),
      [
        {
          id: randomUUID(),
          type: 'CheckCreated',
          data: { accountId: a.accountId, check, at },
          metadata: {
            accountId: a.accountId,
            actor: 'test',
            commandId: randomUUID(),
            occurredAt: at,
            schemaVersion: 1,
          },
        },
      ],
      'no_stream',
    );
    await eventually(
      () => a.owner.get(`/v1/checks/${id}`),
      (r) => r.status === 200,
      'the check read back',
    );
    return id;
  }
  const alertTypes = async (checkId: string) =>
    ((await a.owner.get(`/v1/check-alerts/${checkId}`)).body.items as { alertType: string }[])
      .map((alert) => alert.alertType)
      .reverse();

  it('alerts NO_DATA after two silent windows, once, and recovers when a result comes through the API', async () => {
    const checkId = await externalCheck('Billing export', true, 3);
    expect((await a.owner.get(`/v1/checks/${checkId}`)).body.noDataAlerts).toBe(true);

    await eventually(
      () => alertTypes(checkId),
      (types) => types.length > 0,
      'ALERT_NO_DATA',
    );
    expect(await alertTypes(checkId)).toEqual(['ALERT_NO_DATA']);
    const [alert] = (await a.owner.get(`/v1/check-alerts/${checkId}`)).body.items;
    expect(alert.errorMessage).toMatch(/No result received by/);
    // The signal is no run: nothing stored, no status made up.
    expect((await a.owner.get(`/v1/check-statuses?checkId=${checkId}`)).body).toEqual([]);
    expect((await a.owner.get(`/v1/check-results/${checkId}`)).body.items).toEqual([]);

    const result = {
      id: randomUUID(),
      accountId: a.accountId,
      checkId,
      checkType: 'API',
      startedAt: new Date().toISOString(),
      runLocation: 'on-prem',
      hasFailures: false,
      responseTime: 42,
      statusCode: 200,
    };
    const sent = await vigil.as(vigil.ingestKey).post('/v1/check-results', [result]);
    expect(sent.body).toMatchObject({ accepted: 1 });
    await eventually(
      () => alertTypes(checkId),
      (types) => types.length === 2,
      'ALERT_NO_DATA_RECOVERY',
    );
    expect(await alertTypes(checkId)).toEqual(['ALERT_NO_DATA', 'ALERT_NO_DATA_RECOVERY']);

    // A silence is no outage: the public page lists no incident for it.
    const slug = `silence-${Date.now()}`;
    expect((await a.owner.post('/v1/status-pages', { title: 'Exports', slug, checkIds: [checkId] })).status).toBe(201);
    const page = await vigil.as(null).get(`/v1/public/status-pages/${slug}`);
    expect(page.body.incidents).toEqual([]);
  });

  it('sends nothing for a silent check that leaves the setting off (the default)', async () => {
    const quiet = await externalCheck('Quiet export', false, 3);
    const loud = await externalCheck('Loud export', true, 3);
    await eventually(
      () => alertTypes(loud),
      (types) => types.length > 0,
      'the control check alerted',
    );
    expect(await alertTypes(quiet)).toEqual([]);
  });

  it('refuses noData from a producer: only the runner says a check sent nothing', async () => {
    const created = await a.owner.post('/v1/checks', { name: 'Producer', checkType: 'API' });
    const forged = {
      id: randomUUID(),
      accountId: a.accountId,
      checkId: created.body.id,
      checkType: 'API',
      startedAt: new Date().toISOString(),
      runLocation: 'on-prem',
      hasFailures: false,
      responseTime: 1,
      noData: true,
    };
    const sent = await vigil.as(vigil.ingestKey).post('/v1/check-results', [forged]);
    expect(sent.body).toEqual({ accepted: 0, rejected: [{ index: 0, message: expect.stringMatching(/^noData:/) }] });
  });
});
