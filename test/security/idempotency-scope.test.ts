import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueSuffix } from '#test-support';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

// Idempotency keys are scoped by account and principal: the same key and body sent to two
// accounts, or by two callers, are two requests.
describe('idempotency scope = account + principal', () => {
  let vigil: TestVigil;
  beforeAll(async () => {
    vigil = await startVigil();
  });
  afterAll(async () => {
    await vigil?.stop();
  });

  it('a user in two accounts: the same key and body write to each account', async () => {
    const email = `two-${uniqueSuffix()}@example.com`;
    const a = await createAccount(vigil, 'team', email);
    const b = await createAccount(vigil, 'team', email);
    const headers = { 'idempotency-key': `k-${uniqueSuffix()}` };
    const body = { key: 'SHARED', value: 'v' };
    const inA = await vigil.as(a.ownerKey, a.accountId).post('/v1/variables', body, headers);
    const inB = await vigil.as(a.ownerKey, b.accountId).post('/v1/variables', body, headers);
    expect(inA.status).toBe(201);
    expect(inB.status).toBe(201);
    expect(inB.headers.get('idempotent-replayed')).toBeNull();
    expect((await vigil.as(a.ownerKey, b.accountId).get('/v1/variables/SHARED')).status).toBe(200);
    // Within one account the key still replays.
    const again = await vigil.as(a.ownerKey, b.accountId).post('/v1/variables', body, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('two principals in one account with the same key each get their own write', async () => {
    const a = await createAccount(vigil);
    const invited = await a.owner.post('/v1/users', { email: `rw-${uniqueSuffix()}@example.com`, role: 'READ_WRITE' });
    const other = vigil.as(invited.body.apiKey.key, a.accountId);
    const headers = { 'idempotency-key': `k-${uniqueSuffix()}` };
    const first = await a.owner.post('/v1/check-groups', { name: 'g' }, headers);
    const second = await other.post('/v1/check-groups', { name: 'g' }, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.id).not.toBe(first.body.id);
  });
});
