import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '#core';
import { startDistributed, type DistributedFixture } from '#test-distributed';
import { eventually, freePort, startApp, type AppProcess } from '#test-processes';
import { client, type ApiClient } from '#test-vigil';

// Each API process keeps token → check id in memory. A rotation, deactivation or deletion made
// through one replica must stop the old ping URL on another one at once, and pings through two
// replicas must be classified against each other (the last-ping time lives in Redis).

describe('heartbeat pings across two API processes (Redis, Kafka, ClickHouse)', () => {
  let fixture: DistributedFixture;
  let replica: AppProcess | undefined;
  let a: ApiClient;
  let b: ApiClient;

  beforeAll(async () => {
    fixture = await startDistributed({ checks: 0, apps: 'api,projector,ingestor' });
    const started = await startApp(
      'api',
      await freePort(),
      { ...fixture.env, VIGIL_ADMIN_KEY: generateApiKey(), VIGIL_PING_RATE_PER_MINUTE: '1000' },
      '/ready',
      120_000,
    );
    replica = started.app;
    const url = started.url;
    a = fixture.vigil.as(null);
    b = client(url, null);
  }, 180_000);

  afterAll(async () => {
    if (replica) expect(await replica.kill('SIGTERM')).toBe(0);
    await fixture?.stop();
  });

  async function heartbeatCheck() {
    const created = await fixture.account.owner.post('/v1/checks', {
      name: 'Nightly export',
      checkType: 'HEARTBEAT',
      heartbeat: { period: 1, periodUnit: 'hours', grace: 5, graceUnit: 'minutes' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body;
  }

  it('classifies pings through either replica against each other, and stores each', async () => {
    const check = await heartbeatCheck();
    const first = await b.post(`/ping/${check.heartbeat.pingToken}`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.status).toBe('RECEIVED');
    const second = await a.post(`/ping/${check.heartbeat.pingToken}`);
    expect(second.body.status).toBe('EARLY');
    const third = await b.post(`/ping/${check.heartbeat.pingToken}`);
    expect(third.body.status).toBe('EARLY');
    for (const answer of [first, second, third]) {
      const stored = await eventually(
        () => fixture.account.owner.get(`/v1/check-results/${check.id}/${answer.body.resultId}`),
        (r) => r.status === 200,
        30_000,
      );
      expect(stored.body.id).toBe(answer.body.resultId);
    }
  });

  it('stops an old token on the other replica at once after a rotation, deactivation or deletion', async () => {
    const check = await heartbeatCheck();
    const old = check.heartbeat.pingToken;
    // The replica has seen the token: its check id is in that process's memory now.
    expect((await b.get(`/ping/${old}`)).status).toBe(200);

    const rotated = await fixture.account.owner.post(`/v1/checks/${check.id}/heartbeat/rotate`);
    expect(rotated.status).toBe(200);
    const token = rotated.body.heartbeat.pingToken;
    expect((await b.get(`/ping/${old}`)).status).toBe(404);
    expect((await b.get(`/ping/${token}`)).status).toBe(200);

    const current = (await fixture.account.owner.get(`/v1/checks/${check.id}`)).body;
    const off = await fixture.account.owner.put(`/v1/checks/${check.id}`, {
      ...current,
      id: undefined,
      activated: false,
    });
    expect(off.status).toBe(200);
    expect((await b.get(`/ping/${token}`)).status).toBe(404);
    const on = await fixture.account.owner.put(`/v1/checks/${check.id}`, {
      ...current,
      id: undefined,
      activated: true,
    });
    expect(on.status).toBe(200);
    expect((await b.get(`/ping/${token}`)).status).toBe(200);

    expect((await fixture.account.owner.delete(`/v1/checks/${check.id}`)).status).toBe(204);
    expect((await b.get(`/ping/${token}`)).status).toBe(404);
    expect((await b.get(`/ping/${old}`)).status).toBe(404);
  });
});
