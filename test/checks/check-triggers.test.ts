import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

/** Check trigger URLs (/v1/triggers/checks/{id}), on Vigil's own API and in the Checkly dialect. */
describe('check triggers (embedded)', () => {
  let vigil: TestVigil;
  let target: Server;
  let base: string;
  let answer = 200;

  beforeAll(async () => {
    target = createServer((_request, response) => {
      response.writeHead(answer, { 'content-type': 'application/json' });
      response.end('{"ok":true}');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    vigil = await startVigil({ env: { VIGIL_RUNNER_ALLOW_PRIVATE: 'true', VIGIL_TRIGGER_RATE_PER_MINUTE: '3' } });
  });
  afterAll(async () => {
    await vigil?.stop();
    await new Promise((resolve) => target?.close(resolve));
  });

  async function accountWithCheck() {
    const a = await createAccount(vigil);
    const check = await a.owner.post('/v1/checks', {
      name: 'Orders',
      checkType: 'API',
      request: { url: `${base}/orders`, assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
    });
    expect(check.status, JSON.stringify(check.body)).toBe(201);
    return { ...a, checkId: check.body.id as string };
  }
  const call = (path: string, method = 'GET') => fetch(`${vigil.url}${path}`, { method });

  it('creates one trigger per check; its URL runs the check with no key and counts the call', async () => {
    const a = await accountWithCheck();
    const created = await a.owner.post(`/v1/triggers/checks/${a.checkId}`);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ checkId: a.checkId, called: 0, calledAt: null });
    expect(created.body.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // Under VIGIL_PUBLIC_URL (here the address before the port was chosen).
    expect(created.body.url.endsWith(`/v1/checks/${a.checkId}/trigger/${created.body.token}`)).toBe(true);
    // A second create answers the same trigger (200): the URL in a pipeline keeps working.
    const again = await a.owner.post(`/v1/triggers/checks/${a.checkId}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(created.body);

    // A HEAD (a link preview, a URL checker) starts nothing.
    expect((await call(new URL(created.body.url).pathname, 'HEAD')).status).toBeGreaterThanOrEqual(400);
    answer = 200;
    const passed = await call(new URL(created.body.url).pathname);
    expect(passed.status).toBe(200);
    type Call = { checkId: string; hasFailures: boolean; results: Array<{ resultId: string }> };
    const body = (await passed.json()) as Call;
    expect(body).toMatchObject({ checkId: a.checkId, hasFailures: false });
    expect(body.results).toHaveLength(1);
    answer = 500;
    const failed = await call(new URL(created.body.url).pathname, 'POST');
    expect(failed.status).toBe(200);
    const failedBody = (await failed.json()) as Call;
    expect(failedBody).toMatchObject({ hasFailures: true });
    answer = 200;

    const read = await a.owner.get(`/v1/triggers/checks/${a.checkId}`);
    expect(read.body).toMatchObject({ token: created.body.token, called: 2 });
    expect(read.body.calledAt).not.toBeNull();
    // The runs are stored like the manual trigger's: their results appear (besides any scheduled run).
    const started = [...body.results, ...failedBody.results].map((result) => result.resultId);
    for (let tries = 0; ; tries++) {
      const results = await a.owner.get(`/v1/check-results/${a.checkId}?limit=50`);
      const ids = ((results.body.items ?? []) as Array<{ id: string }>).map((result) => result.id);
      if (started.every((id) => ids.includes(id))) break;
      expect(tries, JSON.stringify(results.body)).toBeLessThan(100);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The check itself does not carry the token.
    expect(JSON.stringify((await a.owner.get(`/v1/checks/${a.checkId}`)).body)).not.toContain(created.body.token);
  });

  it('runs a deactivated check, as the manual trigger does; a heartbeat check is a 400, never a 5xx', async () => {
    const a = await createAccount(vigil);
    const paused = await a.owner.post('/v1/checks', {
      name: 'Paused',
      checkType: 'API',
      activated: false,
      request: { url: `${base}/paused` },
    });
    expect(paused.status, JSON.stringify(paused.body)).toBe(201);
    const { url } = (await a.owner.post(`/v1/triggers/checks/${paused.body.id}`)).body;
    answer = 200;
    const ran = await call(new URL(url).pathname);
    expect(ran.status).toBe(200);
    expect(await ran.json()).toMatchObject({ hasFailures: false });

    const heartbeat = await a.owner.post('/v1/checks', {
      name: 'Backup',
      checkType: 'HEARTBEAT',
      heartbeat: { period: 1, periodUnit: 'hours' },
    });
    expect(heartbeat.status, JSON.stringify(heartbeat.body)).toBe(201);
    const hb = (await a.owner.post(`/v1/triggers/checks/${heartbeat.body.id}`)).body;
    const refused = await call(new URL(hb.url).pathname, 'POST');
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { message: string }).message).toMatch(/heartbeat checks are run by their pings/);
    expect((await a.owner.get(`/v1/triggers/checks/${heartbeat.body.id}`)).body.called).toBe(0);
  });

  it('answers a wrong token, an unknown check and a deleted trigger with the same 404', async () => {
    const a = await accountWithCheck();
    const { token } = (await a.owner.post(`/v1/triggers/checks/${a.checkId}`)).body;
    const wrong = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    const answers = [
      await call(`/v1/checks/${a.checkId}/trigger/${wrong}`),
      await call(`/v1/checks/${a.checkId}/trigger/x`),
      await call(`/v1/checks/${a.checkId}/trigger/${'y'.repeat(256)}`),
      await call(`/v1/checks/00000000-0000-4000-8000-000000000000/trigger/${token}`),
      await call(`/v1/checks/not-an-id/trigger/${token}`),
    ];
    for (const response of answers) {
      expect(response.status).toBe(404);
      expect(((await response.json()) as { message: string }).message).toBe('Unknown trigger');
    }
    expect((await a.owner.delete(`/v1/triggers/checks/${a.checkId}`)).status).toBe(204);
    const gone = await call(`/v1/checks/${a.checkId}/trigger/${token}`);
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { message: string }).message).toBe('Unknown trigger');
    expect((await a.owner.get(`/v1/triggers/checks/${a.checkId}`)).status).toBe(404);
    expect((await a.owner.delete(`/v1/triggers/checks/${a.checkId}`)).status).toBe(404);
    // A new trigger is a new URL.
    const renewed = await a.owner.post(`/v1/triggers/checks/${a.checkId}`);
    expect(renewed.status).toBe(201);
    expect(renewed.body.token).not.toBe(token);
    // Deleting the check ends its trigger too.
    expect((await a.owner.delete(`/v1/checks/${a.checkId}`)).status).toBe(204);
    expect((await call(`/v1/checks/${a.checkId}/trigger/${renewed.body.token}`)).status).toBe(404);
  });

  it('takes the check write role to create or delete, the read role to read; other tenants get 404', async () => {
    const a = await accountWithCheck();
    const reader = await a.owner.post('/v1/users', { email: `ro-${Date.now()}@example.com`, role: 'READ_ONLY' });
    expect(reader.status).toBe(201);
    const ro = vigil.as(reader.body.apiKey.key, a.accountId);
    expect((await ro.post(`/v1/triggers/checks/${a.checkId}`)).status).toBe(403);
    const { token } = (await a.owner.post(`/v1/triggers/checks/${a.checkId}`)).body;
    expect((await ro.get(`/v1/triggers/checks/${a.checkId}`)).body.token).toBe(token);
    expect((await ro.delete(`/v1/triggers/checks/${a.checkId}`)).status).toBe(403);

    const stranger = await createAccount(vigil);
    for (const method of ['POST', 'GET', 'DELETE']) {
      const response = await stranger.owner.request(method, `/v1/triggers/checks/${a.checkId}`);
      expect(response.status, `${method}: ${JSON.stringify(response.body)}`).toBe(404);
      expect(JSON.stringify(response.body)).not.toContain(token);
    }
    expect((await a.owner.get(`/v1/triggers/checks/${a.checkId}`)).body.token).toBe(token);
  });

  it('rate-limits each trigger URL (VIGIL_TRIGGER_RATE_PER_MINUTE), with Retry-After', async () => {
    const a = await accountWithCheck();
    const { url } = (await a.owner.post(`/v1/triggers/checks/${a.checkId}`)).body;
    const path = new URL(url).pathname;
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 4; i++) {
      const response = await call(path, 'POST');
      statuses.push(response.status);
      if (response.status === 429) limited = response;
      else await response.arrayBuffer();
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    // Only the runs that started count.
    expect((await a.owner.get(`/v1/triggers/checks/${a.checkId}`)).body.called).toBe(3);
    // Another check's trigger has its own budget.
    const b = await accountWithCheck();
    const other = (await b.owner.post(`/v1/triggers/checks/${b.checkId}`)).body.url;
    expect((await call(new URL(other).pathname)).status).toBe(200);
  });

  it("serves Checkly's shapes under /checkly: numeric id, snake case, 200 or 503 from the URL", async () => {
    const a = await accountWithCheck();
    const checkly = (method: string, path: string) =>
      fetch(`${vigil.url}/checkly${path}`, {
        method,
        headers: {
          authorization: `Bearer ${a.ownerKey}`,
          'x-checkly-account': a.accountId,
          'content-type': 'application/json',
        },
      });
    const created = await checkly('POST', `/v1/triggers/checks/${a.checkId}`);
    expect(created.status).toBe(201);
    const trigger = (await created.json()) as Record<string, unknown>;
    expect(trigger).toMatchObject({ checkId: a.checkId, called: 0, called_at: null });
    expect(Number.isSafeInteger(trigger.id)).toBe(true);
    expect(typeof trigger.created_at).toBe('string');
    expect(await (await checkly('GET', `/v1/triggers/checks/${a.checkId}`)).json()).toEqual(trigger);
    // The SDK builds the URL as <api_url>/checks/{id}/trigger/{token}.
    answer = 200;
    const passed = await fetch(`${vigil.url}/checkly/checks/${a.checkId}/trigger/${trigger.token}`);
    expect(passed.status).toBe(200);
    expect(await passed.json()).toMatchObject({ hasFailures: false });
    answer = 500;
    const failed = await fetch(`${vigil.url}/checkly/checks/${a.checkId}/trigger/${trigger.token}`, { method: 'POST' });
    answer = 200;
    expect(failed.status).toBe(503);
    expect(await failed.json()).toMatchObject({ hasFailures: true });
    expect((await checkly('DELETE', `/v1/triggers/checks/${a.checkId}`)).status).toBe(204);
    expect((await fetch(`${vigil.url}/checkly/checks/${a.checkId}/trigger/${trigger.token}`)).status).toBe(404);
    expect((await checkly('GET', `/v1/triggers/checks/${a.checkId}`)).status).toBe(404);
  });
});
