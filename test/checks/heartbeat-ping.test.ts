import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test-processes';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

describe('heartbeat ping URLs (embedded)', () => {
  let vigil: TestVigil;
  beforeAll(async () => {
    vigil = await startVigil({
      env: { VIGIL_PING_RATE_PER_MINUTE: '5', VIGIL_PUBLIC_URL: 'https://vigil.example.com' },
    });
  });
  afterAll(async () => {
    await vigil?.stop();
  });

  async function heartbeatCheck() {
    const a = await createAccount(vigil);
    const created = await a.owner.post('/v1/checks', {
      name: 'Nightly backup',
      checkType: 'HEARTBEAT',
      heartbeat: { period: 1, periodUnit: 'hours', grace: 10, graceUnit: 'minutes' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { a, check: created.body };
  }

  /** Every answered ping becomes a stored result, shortly after its answer. */
  async function storedResults(a: Awaited<ReturnType<typeof createAccount>>, checkId: string, ids: string[]) {
    for (const id of ids) {
      const stored = await eventually(
        () => a.owner.get(`/v1/check-results/${checkId}/${id}`),
        (r) => r.status === 200,
        15_000,
      );
      expect(stored.body.id).toBe(id);
    }
  }

  it('shows an unguessable ping URL and keeps it across a PUT of what was read', async () => {
    const { a, check } = await heartbeatCheck();
    const { pingToken, pingUrl } = check.heartbeat;
    expect(pingToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(pingUrl).toBe(`https://vigil.example.com/ping/${pingToken}`);
    const replaced = await a.owner.put(`/v1/checks/${check.id}`, { ...check, id: undefined, name: 'Backup' });
    expect(replaced.status).toBe(200);
    expect(replaced.body.heartbeat.pingToken).toBe(pingToken);
    expect((await a.owner.get(`/v1/checks/${check.id}`)).body.heartbeat.pingUrl).toBe(pingUrl);
  });

  it('records GET, POST and HEAD pings and /fail without an API key, and stores them as results', async () => {
    const { a, check } = await heartbeatCheck();
    const anonymous = vigil.as(null);
    const first = await anonymous.get(`/ping/${check.heartbeat.pingToken}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ checkId: check.id, status: 'RECEIVED' });
    const early = await anonymous.post(`/ping/${check.heartbeat.pingToken}`);
    expect(early.body.status).toBe('EARLY');
    expect((await anonymous.request('HEAD', `/ping/${check.heartbeat.pingToken}`)).status).toBe(200);
    const failed = await anonymous.post(`/ping/${check.heartbeat.pingToken}/fail`);
    expect(failed.body.status).toBe('FAILING');

    // Three passing pings and one failure: heartbeat analytics have no raw runs, but availability counts them.
    // A ping is answered once it is on the bus; the drain inserts it into the analytics store just after
    // (and analytics answers are cached, so ask once every result is there).
    await storedResults(
      a,
      check.id,
      [first, early, failed].map((r) => r.body.resultId),
    );
    const runs = await a.owner.get(`/v1/analytics/heartbeat-checks/${check.id}?metrics=availability`);
    expect(runs.status, JSON.stringify(runs.body)).toBe(200);
    expect(runs.body.series[0].data[0].availability).toBe(75);
  });

  it('classifies pings that arrive together in order, each against the one before it', async () => {
    const { a, check } = await heartbeatCheck();
    const anonymous = vigil.as(null);
    // Sent at once, so they share a batch: only the first can be RECEIVED (no ping before it).
    const answers = await Promise.all([1, 2, 3].map(() => anonymous.post(`/ping/${check.heartbeat.pingToken}`)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(answers.map((r) => r.body.status).sort()).toEqual(['EARLY', 'EARLY', 'RECEIVED']);
    const ids = answers.map((r) => r.body.resultId);
    expect(new Set(ids).size).toBe(3);
    await storedResults(a, check.id, ids);
    expect((await anonymous.post(`/ping/${check.heartbeat.pingToken}`)).body.status).toBe('EARLY');
  });

  it('takes a POST ping of any content type, or none, and keeps the first 10 KiB of its body as its log', async () => {
    // Five pings a minute per URL here: a fresh check for every few.
    const checks = await Promise.all([1, 2, 3].map(() => heartbeatCheck()));
    let sentCount = 0;
    const ping = async (body: string | Buffer | undefined, headers: Record<string, string> = {}, path = '') => {
      const { a, check } = checks[Math.floor(sentCount++ / 4)]!;
      const response = await fetch(`${vigil.url}/ping/${check.heartbeat.pingToken}${path}`, {
        method: 'POST',
        headers,
        body,
      });
      const answer = (await response.json()) as { resultId: string; status: string };
      expect(response.status, JSON.stringify(answer)).toBe(200);
      return { a, checkId: check.id as string, resultId: answer.resultId };
    };
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const big = 'é'.repeat(6000) + 'tail';
    const sent: [Awaited<ReturnType<typeof ping>>, string | undefined][] = [
      // curl -d '' and curl -d 'log=…', as cron lines send them.
      [await ping('', form), undefined],
      [await ping('log=backup%20done', form), 'log=backup%20done'],
      [await ping('{not json', { 'content-type': 'application/json' }), '{not json'],
      [await ping('plain', { 'content-type': 'text/plain' }), 'plain'],
      [await ping(Buffer.from('bytes'), { 'content-type': 'application/octet-stream' }), 'bytes'],
      [await ping(gzipSync('zipped'), { 'content-type': 'text/plain', 'content-encoding': 'gzip' }), 'zipped'],
      // 12,000 bytes of two-byte characters: the log is the first 10 KiB, cut between characters.
      [await ping(big, { 'content-type': 'text/plain' }), 'é'.repeat(5120)],
      [await ping('exit 1', form, '/fail'), 'exit 1'],
      [await ping(undefined), undefined],
    ];
    for (const [{ a, checkId, resultId }, log] of sent) {
      const stored = await eventually(
        () => a.owner.get(`/v1/check-results/${checkId}/${resultId}`),
        (r) => r.status === 200,
        15_000,
      );
      expect(stored.body.logs).toBe(log);
    }
  });

  it('rotates the token with a bodiless POST that says Content-Type: application/json', async () => {
    const { a, check } = await heartbeatCheck();
    const rotated = await fetch(`${vigil.url}/v1/checks/${check.id}/heartbeat/rotate`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${a.ownerKey}`,
        'x-service-account': a.accountId,
        'content-type': 'application/json',
      },
      body: '',
    });
    expect(rotated.status).toBe(200);
  });

  it('answers an unknown token with 404, and rate-limits each token', async () => {
    expect((await vigil.as(null).get('/ping/nope-not-a-token-000000000')).status).toBe(404);
    const { check } = await heartbeatCheck();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1)
      statuses.push((await vigil.as(null).get(`/ping/${check.heartbeat.pingToken}`)).status);
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses.slice(5)).toEqual([429, 429]);
  });

  it('rotates the token: the old URL stops working at once', async () => {
    const { a, check } = await heartbeatCheck();
    const old = check.heartbeat.pingToken;
    const rotated = await a.owner.post(`/v1/checks/${check.id}/heartbeat/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.heartbeat.pingToken).not.toBe(old);
    expect((await vigil.as(null).get(`/ping/${old}`)).status).toBe(404);
    expect((await vigil.as(null).get(`/ping/${rotated.body.heartbeat.pingToken}`)).status).toBe(200);
    const api = await a.owner.post('/v1/checks', { name: 'api', checkType: 'API' });
    expect((await a.owner.post(`/v1/checks/${api.body.id}/heartbeat/rotate`)).status).toBe(400);
  });

  it('ignores pings of a deactivated or deleted check', async () => {
    const { a, check } = await heartbeatCheck();
    const token = check.heartbeat.pingToken;
    await a.owner.put(`/v1/checks/${check.id}`, { ...check, id: undefined, activated: false });
    expect((await vigil.as(null).get(`/ping/${token}`)).status).toBe(404);
    await a.owner.delete(`/v1/checks/${check.id}`);
    expect((await vigil.as(null).get(`/ping/${token}`)).status).toBe(404);
  });
});
