import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { dialectSuite } from './support.ts';

/**
 * Check results as the Go SDK's GetCheckResults and GetCheckResult ask for them (checkly.go at
 * be7d3f0: page, limit, from, to, location, hasFailures=1) and read them (CheckResult: int64
 * responseTime, checkId on each), plus GET /v1/locations.
 */
let checkId: string;
const runIds: string[] = [];

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  let last = await read();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`never happened; last ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await read();
  }
  return last;
}

const suite = dialectSuite(async ({ vigil, owner }) => {
  checkId = (await owner.owner.post('/v1/checks', { name: 'Orders', checkType: 'API' })).body.id;
  const results = Array.from({ length: 5 }, (_, i) => {
    const id = randomUUID();
    runIds.push(id);
    return {
      id,
      accountId: owner.accountId,
      checkId,
      checkType: 'API',
      startedAt: new Date(Date.now() - (10 - i) * 60_000).toISOString(),
      runLocation: i % 2 ? 'us-east-1' : 'eu-west-1',
      hasFailures: i >= 3,
      responseTime: 9.988 + i,
      statusCode: i >= 3 ? 500 : 200,
    };
  });
  expect((await vigil.as(vigil.ingestKey).post('/v1/check-results', results)).body).toMatchObject({ accepted: 5 });
  await eventually(
    () => owner.owner.get(`/v1/check-results/${checkId}?limit=10`),
    (r) => r.body.items?.length === 5,
  );
});

const sdk = (key = suite.owner.ownerKey, account = suite.owner.accountId) => suite.as(key, account);

describe('check results in the SDK shape', () => {
  it('an array paged by page and limit, newest first, until an empty page', async () => {
    const pages: string[][] = [];
    for (let page = 1; page <= 4; page++) {
      const response = await sdk().get(`/v1/check-results/${checkId}?limit=2&page=${page}`);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(Array.isArray(response.body)).toBe(true);
      pages.push(response.body.map((r: { id: string }) => r.id));
    }
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1, 0]);
    expect(pages.flat()).toEqual([...runIds].reverse());
  });

  it('each result carries checkId, an integer responseTime and Checkly flags', async () => {
    const [newest] = (await sdk().get(`/v1/check-results/${checkId}?limit=1`)).body;
    expect(newest).toMatchObject({
      id: runIds[4],
      checkId,
      name: 'Orders',
      hasFailures: true,
      runLocation: 'eu-west-1',
    });
    expect(Number.isInteger(newest.responseTime)).toBe(true);
    expect(newest.responseTime).toBe(14);
    const one = await sdk().get(`/v1/check-results/${checkId}/${runIds[0]}`);
    expect(one.body).toMatchObject({ id: runIds[0], checkId, hasFailures: false });
    expect((await sdk().get(`/v1/check-results/${checkId}/${randomUUID()}`)).status).toBe(404);
  });

  it('hasFailures=1 (the SDK) or true keeps the failing runs; location filters', async () => {
    for (const flag of ['1', 'true']) {
      const failing = (await sdk().get(`/v1/check-results/${checkId}?hasFailures=${flag}&limit=10`)).body;
      expect(failing.map((r: { id: string }) => r.id)).toEqual([runIds[4], runIds[3]]);
    }
    const us = (await sdk().get(`/v1/check-results/${checkId}?location=us-east-1&limit=10`)).body;
    expect(us.map((r: { id: string }) => r.id)).toEqual([runIds[3], runIds[1]]);
    const unknown = await sdk().get(`/v1/check-results/${checkId}?cursor=abc`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('cursor');
  });

  it("another account's check is a 404; /v1/locations lists the account's locations", async () => {
    expect(
      (await sdk(suite.stranger.ownerKey, suite.stranger.accountId).get(`/v1/check-results/${checkId}`)).status,
    ).toBe(404);
    const locations = (await sdk().get('/v1/locations')).body as Array<{ region: string; name: string }>;
    expect(locations.length).toBeGreaterThan(0);
    expect(locations[0]).toEqual({ region: locations[0]!.region, name: locations[0]!.region });
  });
});
