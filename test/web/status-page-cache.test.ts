import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { UPTIME_TTL_MS } from '../../apps/api/src/console/public-status.ts';

/**
 * The public status page's cost: however many visitors come at once, each listed check costs at
 * most one analytics query per cache period. Queries are counted on the real (embedded) analytics
 * store of a real Vigil, by the check id in their SQL.
 */
describe('public status page: analytics queries per check and cache period', () => {
  let vigil: TestVigil;
  let slug = '';
  let listed: string[] = [];
  let unlisted = '';
  const queriesFor = new Map<string, number>();

  beforeAll(async () => {
    vigil = await startVigil();
    const account = await createAccount(vigil);
    const create = async (name: string) =>
      (await account.owner.post('/v1/checks', { name, checkType: 'API', frequency: 1 })).body.id as string;
    listed = [await create('Orders'), await create('Search'), await create('Payments')];
    unlisted = await create('Internal');
    const now = Date.now();
    const results = [...listed, unlisted].flatMap((checkId) =>
      Array.from({ length: 5 }, (_, i) => ({
        id: randomUUID(),
        accountId: account.accountId,
        checkId,
        checkType: 'API',
        startedAt: new Date(now - (i + 1) * 3_600_000).toISOString(),
        runLocation: 'eu-west-1',
        hasFailures: i === 0,
        responseTime: 100 + i,
        statusCode: i === 0 ? 500 : 200,
      })),
    );
    expect((await vigil.as(vigil.ingestKey).post('/v1/check-results', results)).body).toMatchObject({
      accepted: results.length,
    });
    slug = `cache-${randomUUID().slice(0, 8)}`;
    const page = await account.owner.post('/v1/status-pages', { slug, title: 'Acme', checkIds: listed });
    expect(page.status, JSON.stringify(page.body)).toBe(201);

    // Count, do not replace: the real store answers every query.
    const analytics = vigil.running.platform.analytics!;
    const query = analytics.query.bind(analytics);
    analytics.query = (async (sql: string) => {
      for (const id of [...listed, unlisted]) if (sql.includes(id)) queriesFor.set(id, (queriesFor.get(id) ?? 0) + 1);
      return query(sql);
    }) as typeof analytics.query;
  });
  afterAll(async () => {
    await vigil?.stop();
  });

  it('serves 600 concurrent visitors (HTML and JSON) with one uptime query per listed check', async () => {
    const started = Date.now();
    for (let burst = 0; burst < 2; burst++) {
      const answers = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          fetch(`${vigil.url}${i % 2 ? `/status/${slug}` : `/v1/public/status-pages/${slug}`}`).then(async (r) => ({
            status: r.status,
            body: await r.text(),
          })),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      expect(answers.filter((a) => a.body.includes('Payments'))).toHaveLength(300);
    }
    // A slow machine may cross into a new cache period: each one allows one more query per check.
    const periods = 1 + Math.floor((Date.now() - started) / UPTIME_TTL_MS);
    for (const id of listed) {
      expect(queriesFor.get(id) ?? 0).toBeGreaterThanOrEqual(1);
      expect(queriesFor.get(id) ?? 0).toBeLessThanOrEqual(periods);
    }
    expect(queriesFor.get(unlisted) ?? 0).toBe(0);
  });
});
