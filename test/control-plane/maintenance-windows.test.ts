import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test-processes';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

const HOUR = 3_600_000;

describe('maintenance windows through the API (embedded)', () => {
  let vigil: TestVigil;
  beforeAll(async () => {
    vigil = await startVigil();
  }, 60_000);
  afterAll(async () => {
    await vigil?.stop();
  });

  const body = (fields: Record<string, unknown> = {}) => ({
    name: 'Weekly deploy',
    tags: ['api'],
    startsAt: '2026-12-01T23:00:00+01:00',
    endsAt: '2026-12-01T23:30:00Z',
    repeatUnit: 'WEEK',
    repeatInterval: 1,
    ...fields,
  });

  it('creates, reads, lists, replaces and deletes a window, in UTC with the defaults', async () => {
    const { owner } = await createAccount(vigil);
    const created = await owner.post('/v1/maintenance-windows', body());
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Weekly deploy',
      tags: ['api'],
      checkIds: [],
      startsAt: '2026-12-01T22:00:00.000Z',
      endsAt: '2026-12-01T23:30:00.000Z',
      repeatUnit: 'WEEK',
      repeatInterval: 1,
      repeatEndsAt: null,
      pauseRuns: true,
      activeNow: false,
    });
    const id = created.body.id as string;
    // Read your writes.
    expect((await owner.get(`/v1/maintenance-windows/${id}`)).body).toEqual(created.body);
    const second = await owner.post('/v1/maintenance-windows', body({ name: 'Second' }));
    const list = await owner.get('/v1/maintenance-windows?limit=1&page=2');
    expect(list.headers.get('x-total-count')).toBe('2');
    expect(list.body.map((w: { id: string }) => w.id)).toEqual([second.body.id]);

    const replaced = await owner.put(`/v1/maintenance-windows/${id}`, body({ name: 'Monthly', repeatUnit: 'MONTH' }));
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      id,
      name: 'Monthly',
      repeatUnit: 'MONTH',
      createdAt: created.body.createdAt,
    });
    expect(replaced.body.updatedAt >= created.body.updatedAt).toBe(true);

    expect((await owner.delete(`/v1/maintenance-windows/${id}`)).status).toBe(204);
    expect((await owner.get(`/v1/maintenance-windows/${id}`)).status).toBe(404);
    expect((await owner.delete(`/v1/maintenance-windows/${id}`)).status).toBe(404);
  });

  it('answers a window in force now with activeNow', async () => {
    const { owner } = await createAccount(vigil);
    const now = Date.now();
    const created = await owner.post('/v1/maintenance-windows', {
      name: 'Now',
      tags: ['x'],
      startsAt: new Date(now - HOUR).toISOString(),
      endsAt: new Date(now + HOUR).toISOString(),
    });
    expect(created.body.activeNow).toBe(true);
  });

  it.each([
    [{ endsAt: '2026-12-01T21:00:00Z' }, /^endsAt: must be after startsAt/],
    [{ tags: [], checkIds: [] }, /^tags: /],
    [{ repeatUnit: 'YEAR' }, /^repeatUnit/],
    [{ repeatUnit: null }, /^repeatUnit: repeatUnit and repeatInterval go together/],
    [{ startsAt: 'next tuesday' }, /^startsAt: /],
    [{ repeatUnit: 'DAY', endsAt: '2026-12-03T00:00:00Z' }, /^endsAt: a window that repeats every 1 DAY/],
    [{ repeatEndsAt: '2020-01-01T00:00:00Z' }, /^repeatEndsAt: must not be before startsAt/],
    [{ name: '' }, /^name/],
  ])('refuses %j with a 400 naming the field', async (fields, message) => {
    const { owner } = await createAccount(vigil);
    const refused = await owner.post('/v1/maintenance-windows', body(fields));
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(refused.body.message).toMatch(message);
  });

  it("refuses a check id of another account exactly like an unknown one (404), and a reader's writes (403)", async () => {
    const a = await createAccount(vigil);
    const b = await createAccount(vigil);
    const theirs = await b.owner.post('/v1/checks', {
      name: 'theirs',
      checkType: 'API',
      request: { method: 'GET', url: 'https://example.com/' },
    });
    const foreign = await a.owner.post('/v1/maintenance-windows', body({ checkIds: [theirs.body.id] }));
    const unknown = await a.owner.post('/v1/maintenance-windows', body({ checkIds: [randomUUID()] }));
    expect([foreign.status, unknown.status]).toEqual([404, 404]);
    expect(foreign.body.message.replace(theirs.body.id, 'ID')).toBe(
      unknown.body.message.replace(/[0-9a-f-]{36}/, 'ID'),
    );
    const reader = await a.owner.post('/v1/users', { email: `reader-${randomUUID()}@example.com`, role: 'READ_ONLY' });
    const readerClient = vigil.as(reader.body.apiKey.key, a.accountId);
    expect((await readerClient.post('/v1/maintenance-windows', body())).status).toBe(403);
    expect((await readerClient.get('/v1/maintenance-windows')).status).toBe(200);
  });

  it('a status page shows a check in a window as Maintenance, and its availability leaves the window out', async () => {
    const account = await createAccount(vigil);
    const { owner } = account;
    const check = await owner.post('/v1/checks', {
      name: 'Payments',
      checkType: 'API',
      tags: ['payments'],
      request: { method: 'GET', url: 'https://example.com/' },
      activated: false,
    });
    const other = await owner.post('/v1/checks', {
      name: 'Search',
      checkType: 'API',
      tags: ['search'],
      request: { method: 'GET', url: 'https://example.com/' },
      activated: false,
    });
    // Yesterday (whatever the hour now): failures inside a window, passes around it, from midnight UTC on.
    const midnight = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 86_400_000;
    const minute = (n: number) => new Date(midnight + n * 60_000).toISOString();
    const results = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => ({
      id: randomUUID(),
      accountId: account.accountId,
      checkId: check.body.id,
      checkType: 'API',
      startedAt: minute(n),
      runLocation: 'eu-west-1',
      hasFailures: n >= 2 && n < 6,
      responseTime: 100,
    }));
    const posted = await vigil.as(vigil.ingestKey).post('/v1/check-results', results);
    expect(posted.body.accepted).toBe(10);
    const past = await owner.post('/v1/maintenance-windows', {
      name: 'Migration',
      tags: ['payments'],
      startsAt: minute(2),
      endsAt: minute(6),
      pauseRuns: false,
    });
    expect(past.status).toBe(201);
    const slug = `mw-${randomUUID().slice(0, 8)}`;
    const page = await owner.post('/v1/status-pages', {
      slug,
      title: 'Acme',
      checkIds: [check.body.id, other.body.id],
    });
    expect(page.status).toBe(201);
    const yesterday = new Date(midnight).toISOString().slice(0, 10);
    const publicPage = async () => (await vigil.as(null).get(`/v1/public/status-pages/${slug}`)).body;
    const payments = await eventually(
      async () => (await publicPage()).checks[0],
      (c) => c?.days.at(-2)?.availability !== null && c?.days.at(-2)?.date === yesterday,
      15_000,
    );
    // Four of ten runs failed, all inside the window: the day counts the six outside it, all passing.
    expect(payments.days.at(-2).availability).toBe(100);
    expect(payments.uptime90d).toBe(100);

    // A window in force now: the check reads Maintenance, the page is not an outage.
    await owner.post('/v1/maintenance-windows', {
      name: 'Now',
      checkIds: [other.body.id],
      startsAt: new Date(Date.now() - HOUR).toISOString(),
      endsAt: new Date(Date.now() + HOUR).toISOString(),
    });
    const current = await eventually(publicPage, (p) => p.checks[1]?.state === 'maintenance', 15_000);
    expect(current.checks[0].state).not.toBe('maintenance');
    const html = await fetch(`${vigil.url}/status/${slug}`).then((r) => r.text());
    expect(html).toContain('Maintenance');
  }, 60_000);
});
