import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleCheckResult } from '#analytics';
import { createAccount, startVigil, type ApiClient, type ApiResponse, type TestVigil } from '#test-vigil';

/**
 * The analytics endpoints through a whole Vigil (embedded adapters): real keys, accounts, read
 * models, auth and rate limits. The default limit is lowered so the test can reach it.
 */
const DEFAULT_LIMIT = 45;
let vigil: TestVigil;
let a: Awaited<ReturnType<typeof createAccount>>;
let b: Awaited<ReturnType<typeof createAccount>>;
const ids: Record<string, string> = {};

async function check(owner: ApiClient, name: string, checkType: string): Promise<string> {
  const created = await owner.post<{ id: string }>('/v1/checks', { name, checkType });
  if (created.status !== 201)
    throw new Error(`check creation failed: ${created.status} ${JSON.stringify(created.body)}`);
  return created.body.id;
}

/** Fixed 60 s windows: start a burst early in one, so it cannot straddle a reset. */
async function freshWindow(): Promise<void> {
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 40_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoWindow + 50));
}

function headers(response: ApiResponse) {
  return {
    limit: response.headers.get('ratelimit-limit'),
    remaining: response.headers.get('ratelimit-remaining'),
    reset: Number(response.headers.get('ratelimit-reset')),
    retryAfter: response.headers.get('retry-after'),
  };
}

beforeAll(async () => {
  vigil = await startVigil({ env: { VIGIL_RATE_LIMIT_PER_MINUTE: String(DEFAULT_LIMIT) } });
  a = await createAccount(vigil);
  b = await createAccount(vigil);
  ids.multistep = await check(a.owner, 'Login flow', 'MULTI_STEP');
  ids.api = await check(a.owner, 'Orders API', 'API');
  ids.foreign = await check(b.owner, 'B multistep', 'MULTI_STEP');
  const startedAt = new Date(Date.now() - 3_600_000).toISOString();
  await vigil.running.platform.analytics!.insert([
    sampleCheckResult({
      accountId: a.accountId,
      checkId: ids.multistep,
      checkType: 'MULTI_STEP',
      startedAt,
      responseTime: 1200,
    }),
    sampleCheckResult({ accountId: a.accountId, checkId: ids.api, checkType: 'API', startedAt, responseTime: 80 }),
  ]);
});

afterAll(async () => {
  await vigil?.stop();
});

describe('analytics routes (whole Vigil)', () => {
  it('answers the owner, with rate-limit headers', async () => {
    const response = await a.owner.get(`/v1/analytics/api-checks/${ids.api}?metrics=responseTime_avg,availability`);
    expect(response.status).toBe(200);
    expect(response.body.series).toEqual([{ data: [{ responseTime_avg: 80, availability: 100 }] }]);
    expect(headers(response).limit).toBe(String(DEFAULT_LIMIT));
  });

  it('is 404 for another account’s check and for a check of another type', async () => {
    const foreign = await a.owner.get(`/v1/analytics/multistep-checks/${ids.foreign}?metrics=availability`);
    expect(foreign.status).toBe(404);
    const wrongType = await a.owner.get(`/v1/analytics/browser-checks/${ids.multistep}?metrics=availability`);
    expect(wrongType.status).toBe(404);
    expect((await b.owner.get(`/v1/analytics/api-checks/${ids.api}?metrics=availability`)).status).toBe(404);
  });

  it('needs a key', async () => {
    expect((await vigil.as(null).get(`/v1/analytics/api-checks/${ids.api}?metrics=availability`)).status).toBe(401);
    expect((await vigil.as(null).get('/v1/analytics/metrics/api')).status).toBe(401);
  });

  it('answers a check read again from the check window, and a write through the store is seen at once', async () => {
    const id = await check(a.owner, 'Window API', 'API');
    const at = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    const result = (minutes: number, responseTime: number) =>
      sampleCheckResult({
        accountId: a.accountId,
        checkId: id,
        checkType: 'API',
        startedAt: at(minutes),
        responseTime,
      });
    await vigil.running.platform.analytics!.insert([result(30, 100), result(20, 300)]);
    const counter = async (name: string) => {
      const text = await (await fetch(`${vigil.url}/metrics`)).text();
      return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
    };
    // Each question differs, so the answer cache never gives it: only the window can.
    const ask = async (metrics: string) =>
      (await a.owner.get(`/v1/analytics/api-checks/${id}?metrics=${metrics}`)).body;
    const loads = await counter('vigil_analytics_window_loads_total');
    expect((await ask('responseTime_avg')).series).toEqual([{ data: [{ responseTime_avg: 200 }] }]);
    await expect.poll(() => counter('vigil_analytics_window_loads_total')).toBe(loads + 1);
    const hits = await counter('vigil_analytics_window_hits_total');
    expect((await ask('responseTime_max,availability')).series).toEqual([
      { data: [{ responseTime_max: 300, availability: 100 }] },
    ]);
    expect(await counter('vigil_analytics_window_hits_total')).toBe(hits + 1);

    await vigil.running.platform.analytics!.insert([result(10, 900)]);
    expect((await ask('responseTime_max,retries')).series).toEqual([{ data: [{ responseTime_max: 900, retries: 0 }] }]);
    expect(await counter('vigil_analytics_window_hits_total')).toBe(hits + 1);
  });

  it('limits multistep analytics to 30 requests per 60 s per account: the 31st is 429 with Retry-After', async () => {
    // A fresh account: earlier tests' multistep requests in this minute must not count here.
    const fresh = await createAccount(vigil);
    const check = (await fresh.owner.post('/v1/checks', { name: 'limited', checkType: 'MULTI_STEP' })).body;
    await freshWindow();
    const url = `/v1/analytics/multistep-checks/${check.id}?metrics=responseTime_p95`;
    for (let n = 1; n <= 30; n++) {
      const response = await fresh.owner.get(url);
      expect(response.status, `request ${n}`).toBe(200);
      expect(headers(response)).toMatchObject({ limit: '30', remaining: String(30 - n) });
    }
    const limited = await fresh.owner.get(url);
    expect(limited.status).toBe(429);
    const seen = headers(limited);
    expect(seen).toMatchObject({ limit: '30', remaining: '0' });
    expect(seen.reset).toBeGreaterThan(0);
    expect(seen.reset).toBeLessThanOrEqual(60);
    expect(Number(seen.retryAfter)).toBeGreaterThan(0);
    expect(limited.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
    // The multistep bucket is its own: other analytics of the account, and other accounts, go on.
    const api = (await fresh.owner.post('/v1/checks', { name: 'other', checkType: 'API' })).body;
    expect((await fresh.owner.get(`/v1/analytics/api-checks/${api.id}?metrics=availability`)).status).toBe(200);
    expect((await b.owner.get(`/v1/analytics/multistep-checks/${ids.foreign}?metrics=availability`)).status).toBe(200);
  });

  it('limits every other route to the configured default per account', async () => {
    await freshWindow();
    const url = `/v1/analytics/api-checks/${ids.api}?metrics=availability`;
    let response = await a.owner.get(url);
    // Earlier requests of this minute count too; go until none remain.
    while (response.status === 200 && headers(response).remaining !== '0') response = await a.owner.get(url);
    expect(response.status).toBe(200);
    const limited = await a.owner.get('/v1/analytics/metrics/browser');
    expect(limited.status).toBe(429);
    expect(headers(limited)).toMatchObject({ limit: String(DEFAULT_LIMIT), remaining: '0' });
    expect(Number(headers(limited).retryAfter)).toBeGreaterThan(0);
  });
});
