import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type TestVigil, startVigil } from '#test-vigil';
import { sampleResult } from '../fixtures/results.ts';

/** An account key (READ_WRITE and above) sends results for its own checks; the platform key for any. */
describe('account-scoped ingestion', () => {
  let vigil: TestVigil;
  let account: Awaited<ReturnType<typeof createAccount>>;
  let other: Awaited<ReturnType<typeof createAccount>>;
  let checkId: string;
  let foreignCheck: string;

  beforeAll(async () => {
    vigil = await startVigil();
    account = await createAccount(vigil, 'enterprise');
    other = await createAccount(vigil);
    checkId = (await account.owner.post('/v1/checks', { name: 'api', checkType: 'API' })).body.id;
    foreignCheck = (await other.owner.post('/v1/checks', { name: 'x', checkType: 'API' })).body.id;
  });
  afterAll(async () => {
    await vigil?.stop();
  });

  const count = (id: string) => vigil.running.platform.analytics!.countResults({ checkId: id });

  it('fills in the key’s account, rejects other accounts by index, and hides foreign checks', async () => {
    const { accountId: _omitted, ...withoutAccount } = sampleResult({ accountId: account.accountId, checkId });
    const before = await count(checkId);
    const response = await account.owner.post('/v1/check-results', [
      withoutAccount,
      sampleResult({ accountId: account.accountId, checkId }),
      sampleResult({ accountId: other.accountId, checkId: foreignCheck }),
      sampleResult({ accountId: account.accountId, checkId: foreignCheck }),
    ]);
    expect(response.status).toBe(202);
    expect(response.body.accepted).toBe(2);
    expect(response.body.rejected).toEqual([
      { index: 2, message: `accountId: this key sends results for account ${account.accountId} only` },
      { index: 3, message: `checkId: unknown check ${foreignCheck}` },
    ]);
    expect(await count(checkId)).toBe(before + 2);
    expect(await count(foreignCheck)).toBe(0);
  });

  it('refuses a READ_ONLY key (403) and still takes the platform ingest key', async () => {
    const readOnly = await account.owner.post('/v1/api-keys', { name: 'ro', type: 'service', role: 'READ_ONLY' });
    expect(readOnly.status).toBe(201);
    const refused = await vigil
      .as(readOnly.body.key)
      .post('/v1/check-results', [sampleResult({ accountId: account.accountId, checkId })]);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/READ_WRITE/);
    const platform = await vigil
      .as(vigil.ingestKey)
      .post('/v1/check-results', [sampleResult({ accountId: other.accountId, checkId: foreignCheck })]);
    expect(platform.status).toBe(202);
    expect(platform.body.accepted).toBe(1);
  });
});
