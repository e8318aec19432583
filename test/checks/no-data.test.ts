import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

type Account = Awaited<ReturnType<typeof createAccount>>;

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  let last: T = await read();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`${what}: never happened; last ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await read();
  }
  return last;
}

/**
 * Issue 23, item 6: an external check (no definition) that stops receiving results shows NO_DATA
 * after two missed frequency windows, in the status API and on status pages, and leaves it as
 * soon as a result comes back.
 */
describe('NO_DATA for external checks', () => {
  let vigil: TestVigil;
  let a: Account;

  beforeAll(async () => {
    vigil = await startVigil();
    a = await createAccount(vigil);
  });
  afterAll(async () => vigil?.stop());

  const send = async (checkId: string, at: Date) => {
    const result = {
      id: randomUUID(),
      accountId: a.accountId,
      checkId,
      checkType: 'API',
      startedAt: at.toISOString(),
      runLocation: 'on-prem',
      hasFailures: false,
      responseTime: 80,
      statusCode: 200,
    };
    const ingest = await vigil.as(vigil.ingestKey).post('/v1/check-results', [result]);
    expect(ingest.body).toMatchObject({ accepted: 1 });
    return result.id;
  };
  const statusOf = async (checkId: string, runId: string) =>
    (
      await eventually(
        () => a.owner.get(`/v1/check-statuses?checkId=${checkId}`),
        (r) => r.body.length === 1 && r.body[0].lastCheckRunId === runId,
        'the status of the result sent',
      )
    ).body[0];

  it('shows NO_DATA after two silent windows, on the status API and the status page, until a result comes', async () => {
    const created = await a.owner.post('/v1/checks', { name: 'Billing batch', checkType: 'API', frequency: 1 });
    expect(created.status).toBe(201);
    const checkId = created.body.id as string;
    const slug = `no-data-${Date.now()}`;
    const page = await a.owner.post('/v1/status-pages', { title: 'Billing', slug, checkIds: [checkId] });
    expect(page.status, JSON.stringify(page.body)).toBe(201);

    // Given the last result came 3 minutes ago on a 1-minute check: two windows missed.
    const stale = await send(checkId, new Date(Date.now() - 3 * 60_000));
    const silent = await statusOf(checkId, stale);
    expect(silent).toMatchObject({ noData: true, hasFailures: false, lastCheckRunId: stale });
    const all = await a.owner.get('/v1/check-statuses');
    expect(all.body.find((s: { checkId: string }) => s.checkId === checkId).noData).toBe(true);
    const publicPage = await vigil.as(null).get(`/v1/public/status-pages/${slug}`);
    expect(publicPage.body.checks).toEqual([expect.objectContaining({ name: 'Billing batch', state: 'unknown' })]);
    expect(publicPage.body.state).toBe('unknown');

    // When a result comes back, the check shows what it says again.
    const fresh = await send(checkId, new Date());
    expect(await statusOf(checkId, fresh)).toMatchObject({ noData: false, hasFailures: false });
  });

  it('never marks a check Vigil runs itself, however old its last result', async () => {
    const created = await a.owner.post('/v1/checks', {
      name: 'Managed',
      checkType: 'API',
      frequency: 1,
      activated: false,
      request: { url: 'https://example.com/' },
    });
    const old = await send(created.body.id, new Date(Date.now() - 60 * 60_000));
    expect(await statusOf(created.body.id, old)).toMatchObject({ noData: false });
  });

  it('given a result within two windows, is not NO_DATA', async () => {
    const created = await a.owner.post('/v1/checks', { name: 'Nightly', checkType: 'API', frequency: 5 });
    const recent = await send(created.body.id, new Date(Date.now() - 6 * 60_000));
    expect(await statusOf(created.body.id, recent)).toMatchObject({ noData: false });
  });
});
