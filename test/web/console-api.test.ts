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

/** The API additions behind the console, on the embedded adapters. */
describe('console API: statuses, alerts, runs, events, status pages', () => {
  let vigil: TestVigil;
  let a: Account;
  let b: Account;
  let checkId: string;
  let hiddenId: string;
  const runIds: string[] = [];

  const result = (id: string, at: Date, failing: boolean, location = 'eu-west-1') => ({
    id,
    accountId: a.accountId,
    checkId,
    checkType: 'API',
    startedAt: at.toISOString(),
    runLocation: location,
    hasFailures: failing,
    responseTime: failing ? 900 : 120,
    statusCode: failing ? 500 : 200,
    ...(failing
      ? {
          errorMessage: 'STATUS_CODE EQUALS 200: got 500 (secret-path)',
          assertions: [
            { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200', passed: false, actual: '500' },
            { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '2000', passed: true, actual: '900' },
          ],
        }
      : {}),
    timings: { dns: 1, tcp: 2, firstByte: 50, download: 5, total: failing ? 900 : 120 },
    ssl: { daysRemaining: 42, domain: 'acme.test' },
  });

  beforeAll(async () => {
    vigil = await startVigil();
    a = await createAccount(vigil);
    b = await createAccount(vigil);
    const created = await a.owner.post('/v1/checks', { name: 'Orders API', checkType: 'API', frequency: 1 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    checkId = created.body.id;
    hiddenId = (await a.owner.post('/v1/checks', { name: 'Hidden', checkType: 'API', frequency: 1 })).body.id;
    const now = Date.now();
    const results = [];
    for (let i = 0; i < 25; i++) {
      const id = randomUUID();
      runIds.push(id);
      results.push(result(id, new Date(now - (30 - i) * 60_000), i >= 22, i % 2 ? 'us-east-1' : 'eu-west-1'));
    }
    const ingest = await vigil.as(vigil.ingestKey).post('/v1/check-results', results);
    expect(ingest.body).toMatchObject({ accepted: 25 });
  });
  afterAll(async () => {
    await vigil?.stop();
  });

  it('answers every status of the account from the read model, newest run winning', async () => {
    const statuses = await eventually(
      () => a.owner.get('/v1/check-statuses?with=summary24h'),
      (r) => r.body.length === 1 && r.body[0].lastCheckRunId === runIds.at(-1),
      'status of the newest run',
    );
    expect(statuses.body[0]).toMatchObject({
      checkId,
      name: 'Orders API',
      hasFailures: true,
      hasErrors: false,
      isDegraded: false,
      longestRun: 900,
      shortestRun: 120,
      sslDaysRemaining: 42,
      lastRunLocation: 'eu-west-1',
    });
    expect(statuses.body[0].availability24h).toBeCloseTo((22 / 25) * 100, 1);
    expect(statuses.body[0].p95Sparkline).toHaveLength(24);
    // Another account sees none of it.
    expect((await b.owner.get('/v1/check-statuses')).body).toEqual([]);
    // One check's status alone (the check page's read); a check without runs, or another account's, has none.
    const one = await a.owner.get(`/v1/check-statuses?checkId=${checkId.toUpperCase()}`);
    expect(one.body.map((s: { checkId: string }) => s.checkId)).toEqual([checkId]);
    expect((await a.owner.get(`/v1/check-statuses?checkId=${hiddenId}`)).body).toEqual([]);
    expect((await b.owner.get(`/v1/check-statuses?checkId=${checkId}`)).body).toEqual([]);
    expect((await a.owner.get('/v1/check-statuses?checkId=nope')).body.message).toMatch(/^checkId/);
  });

  it('keeps alert history newest first, per account and per check; foreign ids are 404', async () => {
    const alerts = await eventually(
      () => a.owner.get(`/v1/check-alerts/${checkId}?limit=5`),
      (r) => r.status === 200 && r.body.total >= 1,
      'an alert',
    );
    expect(alerts.body.items[0]).toMatchObject({ checkId, alertType: 'ALERT_FAILURE' });
    const all = await a.owner.get('/v1/check-alerts');
    expect(all.body.total).toBe(alerts.body.total);
    expect((await b.owner.get(`/v1/check-alerts/${checkId}`)).status).toBe(404);
    expect((await b.owner.get('/v1/check-alerts')).body.total).toBe(0);
  });

  it('pages raw runs with a cursor, filters them, and serves one run', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { items: { id: string }[]; nextCursor: string | null } } = await a.owner.get(
        `/v1/check-results/${checkId}?limit=10${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((r) => r.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...runIds].reverse());
    const failing = await a.owner.get(`/v1/check-results/${checkId}?hasFailures=true&location=eu-west-1&limit=100`);
    expect(failing.body.items.map((r: { id: string }) => r.id)).toEqual([runIds[24], runIds[22]]);
    const one = await a.owner.get(`/v1/check-results/${checkId}/${runIds[24]}`);
    expect(one.body).toMatchObject({ id: runIds[24], statusCode: 500, ssl: { daysRemaining: 42 } });
    expect(one.body.timings).toMatchObject({ dns: 1, firstByte: 50 });
    // Each assertion's outcome comes back as stored; a run that stored none says so.
    expect(one.body.assertions).toEqual([
      { source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '200', passed: false, actual: '500' },
      { source: 'RESPONSE_TIME', property: '', comparison: 'LESS_THAN', target: '2000', passed: true, actual: '900' },
    ]);
    expect((await a.owner.get(`/v1/check-results/${checkId}/${runIds[0]}`)).body.assertions).toBeNull();
    expect((await b.owner.get(`/v1/check-results/${checkId}/${runIds[24]}`)).status).toBe(404);
    expect((await a.owner.get(`/v1/check-results/${checkId}?cursor=nope`)).status).toBe(400);
    expect((await a.owner.get(`/v1/check-results/${checkId}?from=yesterday`)).body.message).toMatch(/^from/);
  });

  it('pages raw runs by page number too, until an empty page; unknown parameters are named (issue 28, bug 4)', async () => {
    const pages: string[][] = [];
    for (let page = 1; page <= 4; page++) {
      const answer = await a.owner.get(`/v1/check-results/${checkId}?limit=10&page=${page}`);
      expect(answer.status).toBe(200);
      pages.push(answer.body.items.map((r: { id: string }) => r.id));
    }
    expect(pages.map((ids) => ids.length)).toEqual([10, 10, 5, 0]);
    expect(pages.flat()).toEqual([...runIds].reverse());
    const both = await a.owner.get(`/v1/check-results/${checkId}?page=2&cursor=x`);
    expect(both.status).toBe(400);
    expect(both.body.message).toMatch(/^page: /);
    const unknown = await a.owner.get(`/v1/check-results/${checkId}?pgae=2`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('pgae: unknown query parameter; did you mean page?');
  });

  it('streams status changes over SSE and bounds streams per key', async () => {
    const open = async () => {
      const controller = new AbortController();
      const response = await fetch(`${vigil.url}/v1/events`, {
        headers: { authorization: `Bearer ${a.ownerKey}`, 'x-service-account': a.accountId },
        signal: controller.signal,
      });
      return { response, controller };
    };
    const first = await open();
    expect(first.response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = first.response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const read = (async () => {
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return;
        text += decoder.decode(chunk.value);
        if (text.includes('event: status')) return;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const id = randomUUID();
    await vigil.as(vigil.ingestKey).post('/v1/check-results', [result(id, new Date(), false)]);
    await read;
    expect(text).toContain(id);
    const more = await Promise.all([open(), open(), open(), open()]);
    const sixth = await open();
    expect(sixth.response.status).toBe(429);
    for (const s of [first, ...more, sixth]) s.controller.abort();
    expect((await fetch(`${vigil.url}/v1/events`)).status).toBe(401);
  });

  it('creates status pages with slugs unique across accounts and a public page showing only listed checks', async () => {
    const slug = `acme-${randomUUID().slice(0, 8)}`;
    const page = await a.owner.post('/v1/status-pages', {
      slug,
      title: 'Acme <status>',
      description: 'Public',
      checkIds: [checkId],
    });
    expect(page.status, JSON.stringify(page.body)).toBe(201);
    expect((await a.owner.get(`/v1/status-pages/${page.body.id}`)).body).toMatchObject({ slug, checkIds: [checkId] });
    const taken = await b.owner.post('/v1/status-pages', { slug, title: 'Mine', checkIds: [] });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toMatch(/^slug/);
    const foreign = await b.owner.post('/v1/status-pages', { slug: `${slug}-b`, title: 'B', checkIds: [checkId] });
    expect(foreign.status).toBe(404);
    expect((await b.owner.get(`/v1/status-pages/${page.body.id}`)).status).toBe(404);
    expect(
      (await a.owner.post('/v1/status-pages', { slug: 'Bad Slug', title: 'x', checkIds: [] })).body.message,
    ).toMatch(/^slug/);

    const json = await vigil.as(null).get(`/v1/public/status-pages/${slug}`);
    expect(json.status).toBe(200);
    expect(json.body.checks).toHaveLength(1);
    expect(json.body.checks[0]).toMatchObject({ name: 'Orders API' });
    expect(json.body.checks[0].days).toHaveLength(90);
    const html = await fetch(`${vigil.url}/status/${slug}`);
    const body = await html.text();
    expect(html.status).toBe(200);
    expect(body).toContain('Acme &lt;status&gt;');
    for (const secret of [checkId, hiddenId, 'Hidden', 'secret-path', a.accountId]) {
      expect(body).not.toContain(secret);
      expect(JSON.stringify(json.body)).not.toContain(secret);
    }

    // Renaming frees the old slug; deleting frees the new one.
    const renamed = await a.owner.put(`/v1/status-pages/${page.body.id}`, {
      slug: `${slug}-2`,
      title: 'Acme',
      checkIds: [checkId, hiddenId],
    });
    expect(renamed.status).toBe(200);
    expect((await b.owner.post('/v1/status-pages', { slug, title: 'B', checkIds: [] })).status).toBe(201);
    expect((await a.owner.delete(`/v1/status-pages/${page.body.id}`)).status).toBe(204);
    expect((await fetch(`${vigil.url}/status/${slug}-2`)).status).toBe(404);
  });
});
