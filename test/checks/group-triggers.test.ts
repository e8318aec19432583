import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { numericId } from '../../apps/api/src/checkly/ids.ts';

type Call = {
  groupId: string;
  hasFailures: boolean;
  results: Array<{ checkId: string; resultId: string; hasFailures: boolean }>;
};

/** Group trigger URLs (/v1/triggers/check-groups/{id}), on Vigil's own API and in the Checkly dialect. */
describe('group triggers (embedded)', () => {
  let vigil: TestVigil;
  let target: Server;
  let base: string;
  /** What the target answers, by path: a check fails when its path answers 500. */
  const answers = new Map<string, number>();
  const hits = new Map<string, number>();

  beforeAll(async () => {
    target = createServer((request, response) => {
      hits.set(request.url!, (hits.get(request.url!) ?? 0) + 1);
      response.writeHead(answers.get(request.url!) ?? 200, { 'content-type': 'application/json' });
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

  /** A group with two activated API checks, a deactivated one and a heartbeat check; paths are unique per group. */
  async function accountWithGroup() {
    const a = await createAccount(vigil);
    const group = await a.owner.post('/v1/check-groups', { name: 'Shop' });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    const groupId = group.body.id as string;
    const tag = groupId.slice(0, 8);
    const api = async (name: string, activated = true) => {
      const check = await a.owner.post('/v1/checks', {
        name,
        checkType: 'API',
        groupId,
        activated,
        request: {
          url: `${base}/${tag}/${name}`,
          assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
        },
      });
      expect(check.status, JSON.stringify(check.body)).toBe(201);
      return check.body.id as string;
    };
    const checks = { cart: await api('cart'), pay: await api('pay'), paused: await api('paused', false) };
    const heartbeat = await a.owner.post('/v1/checks', {
      name: 'Backup',
      checkType: 'HEARTBEAT',
      groupId,
      heartbeat: { period: 1, periodUnit: 'hours' },
    });
    expect(heartbeat.status, JSON.stringify(heartbeat.body)).toBe(201);
    return { ...a, groupId, tag, checks };
  }
  const call = (path: string, method = 'GET') => fetch(`${vigil.url}${path}`, { method });

  it('creates one trigger per group; its URL runs each activated check of the group with no key, and counts the call', async () => {
    const a = await accountWithGroup();
    const created = await a.owner.post(`/v1/triggers/check-groups/${a.groupId}`);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ groupId: a.groupId, called: 0, calledAt: null });
    expect(created.body.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(created.body.url.endsWith(`/v1/check-groups/${a.groupId}/trigger/${created.body.token}`)).toBe(true);
    const again = await a.owner.post(`/v1/triggers/check-groups/${a.groupId}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(created.body);

    const path = new URL(created.body.url).pathname;
    expect((await call(path, 'HEAD')).status).toBeGreaterThanOrEqual(400);
    const passed = await call(path);
    expect(passed.status).toBe(200);
    const body = (await passed.json()) as Call;
    expect(body).toMatchObject({ groupId: a.groupId, hasFailures: false });
    // The two activated API checks ran; the deactivated one and the heartbeat check did not.
    expect(body.results.map((result) => result.checkId).sort()).toEqual([a.checks.cart, a.checks.pay].sort());
    expect(hits.get(`/${a.tag}/paused`)).toBeUndefined();

    answers.set(`/${a.tag}/pay`, 500);
    const failed = await call(path, 'POST');
    answers.delete(`/${a.tag}/pay`);
    expect(failed.status).toBe(200);
    const failedBody = (await failed.json()) as Call;
    expect(failedBody.hasFailures).toBe(true);
    expect(failedBody.results.find((result) => result.checkId === a.checks.pay)?.hasFailures).toBe(true);
    expect(failedBody.results.find((result) => result.checkId === a.checks.cart)?.hasFailures).toBe(false);

    const read = await a.owner.get(`/v1/triggers/check-groups/${a.groupId}`);
    expect(read.body).toMatchObject({ token: created.body.token, called: 2 });
    expect(read.body.calledAt).not.toBeNull();
    // The runs are stored like the manual trigger's: each check's results appear.
    for (const result of [...body.results, ...failedBody.results]) {
      for (let tries = 0; ; tries++) {
        const results = await a.owner.get(`/v1/check-results/${result.checkId}?limit=50`);
        const ids = ((results.body.items ?? []) as Array<{ id: string }>).map((item) => item.id);
        if (ids.includes(result.resultId)) break;
        expect(tries, JSON.stringify(results.body)).toBeLessThan(100);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(JSON.stringify((await a.owner.get(`/v1/check-groups/${a.groupId}`)).body)).not.toContain(created.body.token);
  });

  it('runs a group larger than the account bound on API-started runs (5 at a time): every check, no 429', async () => {
    const a = await createAccount(vigil);
    const group = await a.owner.post('/v1/check-groups', { name: 'Big' });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const check = await a.owner.post('/v1/checks', {
        name: `big ${i}`,
        checkType: 'API',
        groupId: group.body.id,
        request: { url: `${base}/big/${i}` },
      });
      expect(check.status, JSON.stringify(check.body)).toBe(201);
      ids.push(check.body.id);
    }
    const { url } = (await a.owner.post(`/v1/triggers/check-groups/${group.body.id}`)).body;
    const response = await call(new URL(url).pathname, 'POST');
    const body = (await response.json()) as Call;
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.results.map((result) => result.checkId).sort()).toEqual([...ids].sort());
  });

  it('answers a wrong token, an unknown group and a deleted trigger with the same 404', async () => {
    const a = await accountWithGroup();
    const { token } = (await a.owner.post(`/v1/triggers/check-groups/${a.groupId}`)).body;
    const wrong = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    const other = await accountWithGroup();
    const responses = [
      await call(`/v1/check-groups/${a.groupId}/trigger/${wrong}`),
      await call(`/v1/check-groups/${a.groupId}/trigger/x`),
      await call(`/v1/check-groups/${a.groupId}/trigger/${'y'.repeat(256)}`),
      await call(`/v1/check-groups/00000000-0000-4000-8000-000000000000/trigger/${token}`),
      await call(`/v1/check-groups/not-an-id/trigger/${token}`),
      // Another group's id with this group's token.
      await call(`/v1/check-groups/${other.groupId}/trigger/${token}`),
    ];
    for (const response of responses) {
      expect(response.status).toBe(404);
      expect(((await response.json()) as { message: string }).message).toBe('Unknown trigger');
    }
    expect((await a.owner.delete(`/v1/triggers/check-groups/${a.groupId}`)).status).toBe(204);
    const gone = await call(`/v1/check-groups/${a.groupId}/trigger/${token}`);
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { message: string }).message).toBe('Unknown trigger');
    expect((await a.owner.get(`/v1/triggers/check-groups/${a.groupId}`)).status).toBe(404);
    expect((await a.owner.delete(`/v1/triggers/check-groups/${a.groupId}`)).status).toBe(404);
    const renewed = await a.owner.post(`/v1/triggers/check-groups/${a.groupId}`);
    expect(renewed.status).toBe(201);
    expect(renewed.body.token).not.toBe(token);
    // Deleting the group (once empty) ends its trigger too.
    for (const id of Object.values(a.checks)) expect((await a.owner.delete(`/v1/checks/${id}`)).status).toBe(204);
    const checks = (await a.owner.get('/v1/checks')).body as Array<{ id: string }>;
    for (const { id } of checks) await a.owner.delete(`/v1/checks/${id}`);
    expect((await a.owner.delete(`/v1/check-groups/${a.groupId}`)).status).toBe(204);
    expect((await call(`/v1/check-groups/${a.groupId}/trigger/${renewed.body.token}`)).status).toBe(404);
    expect(
      (await fetch(`${vigil.url}/checkly/check-groups/${numericId(a.groupId)}/trigger/${renewed.body.token}`)).status,
    ).toBe(404);
  });

  it('takes the write role to create or delete, the read role to read; other tenants get 404', async () => {
    const a = await accountWithGroup();
    const reader = await a.owner.post('/v1/users', { email: `ro-${Date.now()}@example.com`, role: 'READ_ONLY' });
    expect(reader.status).toBe(201);
    const ro = vigil.as(reader.body.apiKey.key, a.accountId);
    expect((await ro.post(`/v1/triggers/check-groups/${a.groupId}`)).status).toBe(403);
    const { token } = (await a.owner.post(`/v1/triggers/check-groups/${a.groupId}`)).body;
    expect((await ro.get(`/v1/triggers/check-groups/${a.groupId}`)).body.token).toBe(token);
    expect((await ro.delete(`/v1/triggers/check-groups/${a.groupId}`)).status).toBe(403);

    const stranger = await createAccount(vigil);
    for (const method of ['POST', 'GET', 'DELETE']) {
      const response = await stranger.owner.request(method, `/v1/triggers/check-groups/${a.groupId}`);
      expect(response.status, `${method}: ${JSON.stringify(response.body)}`).toBe(404);
      expect(JSON.stringify(response.body)).not.toContain(token);
    }
    expect((await a.owner.get(`/v1/triggers/check-groups/${a.groupId}`)).body.token).toBe(token);
  });

  it('rate-limits each group trigger URL (VIGIL_TRIGGER_RATE_PER_MINUTE), with Retry-After', async () => {
    const a = await accountWithGroup();
    const path = new URL((await a.owner.post(`/v1/triggers/check-groups/${a.groupId}`)).body.url).pathname;
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
    expect((await a.owner.get(`/v1/triggers/check-groups/${a.groupId}`)).body.called).toBe(3);
  });

  it("serves Checkly's shapes under /checkly: numeric ids, snake case, the SDK's URL answers 200 or 503", async () => {
    const a = await accountWithGroup();
    const numeric = numericId(a.groupId);
    const checkly = (method: string, path: string, key = a.ownerKey, account = a.accountId) =>
      fetch(`${vigil.url}/checkly${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'x-checkly-account': account, 'content-type': 'application/json' },
      });
    const created = await checkly('POST', `/v1/triggers/check-groups/${numeric}`);
    expect(created.status).toBe(201);
    const trigger = (await created.json()) as Record<string, unknown>;
    expect(trigger).toMatchObject({ groupId: numeric, called: 0, called_at: null });
    expect(Number.isSafeInteger(trigger.id)).toBe(true);
    expect((await checkly('POST', `/v1/triggers/check-groups/${numeric}`)).status).toBe(200);
    expect(await (await checkly('GET', `/v1/triggers/check-groups/${numeric}`)).json()).toEqual(trigger);
    // Another account cannot reach it by the same number.
    const stranger = await createAccount(vigil);
    const foreign = await checkly('GET', `/v1/triggers/check-groups/${numeric}`, stranger.ownerKey, stranger.accountId);
    expect(foreign.status).toBe(404);

    // The SDK builds the URL as <api_url>/check-groups/{numericId}/trigger/{token}: no account in it.
    const sdkUrl = `${vigil.url}/checkly/check-groups/${numeric}/trigger/${trigger.token}`;
    const passed = await fetch(sdkUrl);
    expect(passed.status).toBe(200);
    expect(await passed.json()).toMatchObject({ hasFailures: false });
    answers.set(`/${a.tag}/cart`, 500);
    const failed = await fetch(sdkUrl, { method: 'POST' });
    answers.delete(`/${a.tag}/cart`);
    expect(failed.status).toBe(503);
    expect(await failed.json()).toMatchObject({ hasFailures: true });
    // The right token under another number is the same 404.
    expect((await fetch(`${vigil.url}/checkly/check-groups/${numeric + 1}/trigger/${trigger.token}`)).status).toBe(404);
    expect((await fetch(`${vigil.url}/checkly/check-groups/${numeric}/trigger/nope`)).status).toBe(404);
    expect((await checkly('GET', `/v1/triggers/check-groups/${numeric}`)).status).toBe(200);
    expect((await checkly('DELETE', `/v1/triggers/check-groups/${numeric}`)).status).toBe(204);
    expect((await fetch(sdkUrl)).status).toBe(404);
    expect((await checkly('GET', `/v1/triggers/check-groups/${numeric}`)).status).toBe(404);
  });
});
