import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

/**
 * A producer's result may not claim what only the runner makes: artifacts name files the runner
 * wrote to the artifact store, which no producer can upload. Refused, with either key, and the
 * other results of the request still land.
 */
describe('POST /v1/check-results: fields only the runner sets', () => {
  let vigil: TestVigil;
  beforeAll(async () => {
    vigil = await startVigil();
  });
  afterAll(async () => {
    await vigil?.stop();
  });

  it('refuses a result that names artifacts, from the platform key and an account key alike', async () => {
    const a = await createAccount(vigil);
    const check = await a.owner.post('/v1/checks', { name: 'Producer', checkType: 'API' });
    expect(check.status).toBe(201);
    const result = (extra: Record<string, unknown> = {}) => ({
      id: randomUUID(),
      accountId: a.accountId,
      checkId: check.body.id,
      checkType: 'API',
      startedAt: new Date().toISOString(),
      runLocation: 'on-prem',
      hasFailures: true,
      responseTime: 12,
      ...extra,
    });
    const artifacts = [
      { id: randomUUID(), kind: 'screenshot', contentType: 'image/png', bytes: 10, sha256: 'a'.repeat(64) },
    ];
    for (const caller of [vigil.as(vigil.ingestKey), a.owner]) {
      const sent = await caller.post('/v1/check-results', [result({ artifacts }), result()]);
      expect(sent.status).toBe(202);
      expect(sent.body).toEqual({
        accepted: 1,
        rejected: [{ index: 0, message: expect.stringMatching(/^artifacts: set only by the runner/) }],
      });
    }
    // An empty list claims nothing.
    const empty = await a.owner.post('/v1/check-results', [result({ artifacts: [] })]);
    expect(empty.body).toEqual({ accepted: 1, rejected: [] });
  });
});
