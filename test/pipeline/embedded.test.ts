import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type TestVigil, startVigil } from '#test-vigil';
import { sampleResult } from '../fixtures/results.ts';

describe('HTTP ingestion on the embedded path (DuckDB)', () => {
  let vigil: TestVigil;
  let account: Awaited<ReturnType<typeof createAccount>>;
  let checkId: string;
  const ingest = () => vigil.as(vigil.ingestKey);

  beforeAll(async () => {
    vigil = await startVigil();
    account = await createAccount(vigil);
    checkId = (await account.owner.post('/v1/checks', { name: 'api', checkType: 'API' })).body.id;
  });
  afterAll(async () => {
    await vigil?.stop();
  });

  const count = () => vigil.running.platform.analytics!.countResults({ checkId });

  it('accepts a JSON array, rejects bad items by index, and stores only what it accepted', async () => {
    const other = await createAccount(vigil);
    const foreignCheck = (await other.owner.post('/v1/checks', { name: 'x', checkType: 'API' })).body.id;
    const before = await count();
    const body = [
      sampleResult({ accountId: account.accountId, checkId }),
      sampleResult({ accountId: account.accountId, checkId }, { responseTime: -1 }),
      sampleResult({ accountId: account.accountId, checkId: '00000000-0000-4000-8000-000000000001' }),
      sampleResult({ accountId: other.accountId, checkId }),
      sampleResult(
        { accountId: account.accountId, checkId },
        { checkType: 'TCP', statusCode: undefined, statusText: undefined, timings: undefined },
      ),
      sampleResult({ accountId: other.accountId, checkId: foreignCheck }),
    ];
    const response = await ingest().post('/v1/check-results', body);
    expect(response.status).toBe(202);
    expect(response.body.accepted).toBe(2);
    expect(response.body.rejected.map((r: { index: number }) => r.index)).toEqual([1, 2, 3, 4]);
    expect(response.body.rejected[0].message).toMatch(/responseTime/);
    expect(response.body.rejected[1].message).toMatch(/unknown check/);
    expect(response.body.rejected[2].message).toMatch(/accountId/);
    expect(response.body.rejected[3].message).toMatch(/checkType/);
    expect(await count()).toBe(before + 1);
  });

  it('accepts NDJSON and rejects a line that is not JSON by its index', async () => {
    const before = await count();
    const lines = [
      JSON.stringify(sampleResult({ accountId: account.accountId, checkId })),
      '{not json',
      JSON.stringify(sampleResult({ accountId: account.accountId, checkId })),
    ];
    const response = await ingest().request('POST', '/v1/check-results', {
      raw: lines.join('\n') + '\n',
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ accepted: 2, rejected: [{ index: 1 }] });
    expect(response.body.rejected[0].message).toMatch(/JSON/);
    expect(await count()).toBe(before + 2);
  });

  it('counts a result sent twice once', async () => {
    const before = await count();
    const result = sampleResult({ accountId: account.accountId, checkId });
    await ingest().post('/v1/check-results', [result, result]);
    await ingest().post('/v1/check-results', [result]);
    expect(await count()).toBe(before + 1);
  });

  it('refuses more than 10,000 results (413), wrong keys (401/403) and non-array bodies (400)', async () => {
    const many = Array.from({ length: 10_001 }, () => ({}));
    const tooMany = await ingest().post('/v1/check-results', many);
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.message).toMatch(/10000/);
    expect((await vigil.as(null).post('/v1/check-results', [])).status).toBe(401);
    // An account key may send for its own checks (account-ingest.test.ts); a READ_ONLY one gets 403 there.
    expect((await account.owner.post('/v1/check-results', [])).status).toBe(202);
    expect((await vigil.admin.post('/v1/check-results', [])).status).toBe(202);
    expect((await ingest().post('/v1/check-results', { not: 'an array' })).status).toBe(400);
  });
});
