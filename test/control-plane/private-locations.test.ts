import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

describe('private locations through the API (embedded)', () => {
  let vigil: TestVigil;
  beforeAll(async () => {
    vigil = await startVigil();
  }, 60_000);
  afterAll(async () => {
    await vigil?.stop();
  });

  const apiCheck = (locations: string[]) => ({
    checkType: 'API',
    name: 'Intranet',
    request: { method: 'GET', url: 'http://intranet.example.com/health' },
    locations,
  });

  it('creates, reads, lists, replaces and deletes a location, with Checkly field names', async () => {
    const { owner } = await createAccount(vigil);
    const created = await owner.post('/v1/private-locations', { name: 'Berlin office', slugName: 'office-berlin' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Berlin office',
      slugName: 'office-berlin',
      icon: null,
      keys: [],
      agents: [],
      agentCount: 0,
      lastSeen: null,
      status: 'UNAVAILABLE',
    });
    const id = created.body.id as string;
    expect((await owner.get(`/v1/private-locations/${id}`)).body).toEqual(created.body);
    const second = await owner.post('/v1/private-locations', { name: 'VPC', slugName: 'vpc-eu', icon: 'cloud' });
    const list = await owner.get('/v1/private-locations?limit=1&page=2');
    expect(list.headers.get('x-total-count')).toBe('2');
    expect(list.body.map((l: { id: string }) => l.id)).toEqual([second.body.id]);

    const replaced = await owner.put(`/v1/private-locations/${id}`, {
      name: 'Berlin',
      slugName: 'berlin',
      icon: 'location',
    });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body).toMatchObject({ id, name: 'Berlin', slugName: 'berlin', icon: 'location' });

    expect((await owner.delete(`/v1/private-locations/${id}`)).status).toBe(204);
    expect((await owner.get(`/v1/private-locations/${id}`)).status).toBe(404);
    expect((await owner.delete(`/v1/private-locations/${id}`)).status).toBe(404);
  });

  it('refuses a bad or taken slug with a message naming slugName', async () => {
    const { owner } = await createAccount(vigil);
    const bad = await owner.post('/v1/private-locations', { name: 'x', slugName: 'Office Berlin' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^slugName: /);
    const runner = await owner.post('/v1/private-locations', { name: 'x', slugName: 'eu-west-1' });
    expect(runner.status).toBe(400);
    expect(runner.body.message).toMatch(/runner location/);
    expect((await owner.post('/v1/private-locations', { name: 'a', slugName: 'dup' })).status).toBe(201);
    const taken = await owner.post('/v1/private-locations', { name: 'b', slugName: 'dup' });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toMatch(/^slugName: /);
  });

  it('mints keys shown once and stored masked; several live at once; a revoked one is gone', async () => {
    const { owner } = await createAccount(vigil);
    const { body: location } = await owner.post('/v1/private-locations', { name: 'Lab', slugName: 'lab' });
    const first = await owner.post(`/v1/private-locations/${location.id}/keys`);
    const second = await owner.post(`/v1/private-locations/${location.id}/keys`);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.rawKey).toMatch(/^pl_[A-Za-z0-9_-]{43}$/);
    expect(first.body.maskedKey.endsWith(first.body.rawKey.slice(-4))).toBe(true);
    expect(first.body.maskedKey).not.toContain(first.body.rawKey.slice(3, 20));
    const read = await owner.get(`/v1/private-locations/${location.id}`);
    expect(read.body.keys).toEqual([
      { id: first.body.id, maskedKey: first.body.maskedKey, createdAt: first.body.createdAt },
      { id: second.body.id, maskedKey: second.body.maskedKey, createdAt: second.body.createdAt },
    ]);
    expect(JSON.stringify(read.body)).not.toContain(first.body.rawKey);

    expect((await owner.delete(`/v1/private-locations/${location.id}/keys/${first.body.id}`)).status).toBe(204);
    expect(
      (await owner.get(`/v1/private-locations/${location.id}`)).body.keys.map((k: { id: string }) => k.id),
    ).toEqual([second.body.id]);
    expect((await owner.delete(`/v1/private-locations/${location.id}/keys/${first.body.id}`)).status).toBe(404);
  });

  it('a location key opens no ordinary route (401)', async () => {
    const { owner, accountId } = await createAccount(vigil);
    const { body: location } = await owner.post('/v1/private-locations', { name: 'Lab', slugName: 'lab' });
    const { body: key } = await owner.post(`/v1/private-locations/${location.id}/keys`);
    const agent = vigil.as(key.rawKey, accountId);
    for (const path of ['/v1/checks', '/v1/private-locations', `/v1/private-locations/${location.id}`, '/v1/variables'])
      expect((await agent.get(path)).status, path).toBe(401);
  });

  it('the cluster never runs a check from a private location: no heartbeat there, test and trigger run from runner locations', async () => {
    const { owner } = await createAccount(vigil);
    await owner.post('/v1/private-locations', { name: 'Office', slugName: 'office' });
    const heartbeat = await owner.post('/v1/checks', {
      checkType: 'HEARTBEAT',
      name: 'nightly job',
      heartbeat: { period: 1, periodUnit: 'days', grace: 30, graceUnit: 'minutes' },
      locations: ['office'],
    });
    expect(heartbeat.status, JSON.stringify(heartbeat.body)).toBe(400);
    expect(heartbeat.body.message).toMatch(/^locations\[0\]: "office" is a private location; a HEARTBEAT check/);

    const tested = await owner.post('/v1/checks/test', apiCheck(['office']));
    expect(tested.status, JSON.stringify(tested.body)).toBe(200);
    expect(tested.body.result.runLocation).toBe('local');

    const privateOnly = await owner.post('/v1/checks', apiCheck(['office']));
    const refused = await owner.post(`/v1/checks/${privateOnly.body.id}/trigger`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^locations: this check runs only at private locations \(office\)/);
    const both = await owner.post('/v1/checks', apiCheck(['office', 'local']));
    const triggered = await owner.post(`/v1/checks/${both.body.id}/trigger`);
    expect(triggered.status, JSON.stringify(triggered.body)).toBe(200);
    expect(triggered.body.results.map((r: { result: { runLocation: string } }) => r.result.runLocation)).toEqual([
      'local',
    ]);
  });

  it('roles: READ_ONLY reads, READ_WRITE manages locations, keys need ADMIN', async () => {
    const { owner } = await createAccount(vigil, 'enterprise');
    const keyOf = async (role: string) =>
      (await owner.post('/v1/api-keys', { name: role, type: 'service', role })).body.key as string;
    const reader = vigil.as(await keyOf('READ_ONLY'));
    const writer = vigil.as(await keyOf('READ_WRITE'));
    expect((await reader.post('/v1/private-locations', { name: 'x', slugName: 'x' })).status).toBe(403);
    const created = await writer.post('/v1/private-locations', { name: 'x', slugName: 'x' });
    expect(created.status).toBe(201);
    expect((await reader.get(`/v1/private-locations/${created.body.id}`)).status).toBe(200);
    expect((await writer.post(`/v1/private-locations/${created.body.id}/keys`)).status).toBe(403);
    expect((await owner.post(`/v1/private-locations/${created.body.id}/keys`)).status).toBe(201);
  });

  it('checks may list their account’s slugs; an unknown or foreign slug is a 400 naming it', async () => {
    const mine = await createAccount(vigil);
    const theirs = await createAccount(vigil);
    await mine.owner.post('/v1/private-locations', { name: 'Office', slugName: 'office' });
    await theirs.owner.post('/v1/private-locations', { name: 'Theirs', slugName: 'their-office' });

    const placed = await mine.owner.post('/v1/checks', apiCheck(['office', 'eu-west-1']));
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    expect(placed.body.locations).toEqual(['office', 'eu-west-1']);
    for (const slug of ['their-office', 'nowhere']) {
      const refused = await mine.owner.post('/v1/checks', apiCheck([slug]));
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(new RegExp(`^locations\\[0\\]: unknown location "${slug}"`));
    }

    // The slug is in use: it may not be renamed under the check, but the name may change.
    const { body: list } = await mine.owner.get('/v1/private-locations');
    const office = list[0] as { id: string };
    const renamed = await mine.owner.put(`/v1/private-locations/${office.id}`, { name: 'Office', slugName: 'hq' });
    expect(renamed.status).toBe(409);
    expect(renamed.body.message).toMatch(/^slugName: checks or groups list "office"/);
    expect(
      (await mine.owner.put(`/v1/private-locations/${office.id}`, { name: 'HQ', slugName: 'office' })).status,
    ).toBe(200);
  });
});
