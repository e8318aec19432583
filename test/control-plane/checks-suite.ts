import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, type TestVigil } from '#test-vigil';

/** Checks and check groups through the API, on one running Vigil. */
export function checksSuite(name: string, start: () => Promise<TestVigil>): void {
  describe(`checks and check groups (${name})`, () => {
    let vigil: TestVigil;
    beforeAll(async () => {
      vigil = await start();
    });
    afterAll(async () => {
      await vigil?.stop();
    });

    it('creates a check with type defaults, reads, replaces and deletes it', async () => {
      const a = await createAccount(vigil);
      const created = await a.owner.post('/v1/checks', {
        name: 'Homepage',
        checkType: 'URL',
        frequency: 5,
        tags: ['prod'],
        locations: ['eu-west-1'],
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        name: 'Homepage',
        checkType: 'URL',
        activated: true,
        muted: false,
        degradedResponseTime: 3000,
        maxResponseTime: 5000,
        groupId: null,
      });
      const id = created.body.id;
      expect((await a.owner.get(`/v1/checks/${id}`)).body.name).toBe('Homepage');
      const replaced = await a.owner.put(`/v1/checks/${id}`, { name: 'Home', checkType: 'URL', muted: true });
      expect(replaced.body).toMatchObject({ name: 'Home', muted: true, frequency: 10 });
      expect((await a.owner.put(`/v1/checks/${id}`, { name: 'Home', checkType: 'API' })).status).toBe(400);
      expect((await a.owner.delete(`/v1/checks/${id}`)).status).toBe(204);
      expect((await a.owner.get(`/v1/checks/${id}`)).status).toBe(404);
    });

    it('validates frequency, response times and the DNS cap, naming the field', async () => {
      const a = await createAccount(vigil);
      const freq = await a.owner.post('/v1/checks', { name: 'x', checkType: 'API', frequency: 7 });
      expect(freq.status).toBe(400);
      expect(freq.body.message).toMatch(/frequency/);
      const order = await a.owner.post('/v1/checks', {
        name: 'x',
        checkType: 'API',
        degradedResponseTime: 9000,
        maxResponseTime: 8000,
      });
      expect(order.body.message).toMatch(/degradedResponseTime/);
      const dns = await a.owner.post('/v1/checks', { name: 'x', checkType: 'DNS', maxResponseTime: 6000 });
      expect(dns.status).toBe(400);
      expect(dns.body.message).toMatch(/maxResponseTime/);
      expect((await a.owner.post('/v1/checks', { name: 'x', checkType: 'SMTP' })).status).toBe(400);
      const dnsDefaults = await a.owner.post('/v1/checks', { name: 'd', checkType: 'DNS' });
      expect(dnsDefaults.body).toMatchObject({ degradedResponseTime: 500, maxResponseTime: 1000 });
    });

    it('lists with paging and filters by type and tag', async () => {
      const a = await createAccount(vigil);
      await a.owner.post('/v1/checks', { name: 'a', checkType: 'API', tags: ['prod'] });
      await a.owner.post('/v1/checks', { name: 'b', checkType: 'TCP', tags: ['prod'] });
      await a.owner.post('/v1/checks', { name: 'c', checkType: 'API', tags: ['staging'] });
      const all = await a.owner.get('/v1/checks?limit=2');
      expect(all.body.map((c: { name: string }) => c.name)).toEqual(['a', 'b']);
      expect(all.headers.get('x-total-count')).toBe('3');
      expect((await a.owner.get('/v1/checks?checkType=API')).body.map((c: { name: string }) => c.name)).toEqual([
        'a',
        'c',
      ]);
      expect(
        (await a.owner.get('/v1/checks?tag=prod&checkType=API')).body.map((c: { name: string }) => c.name),
      ).toEqual(['a']);
      expect((await a.owner.get('/v1/checks?checkType=NOPE')).status).toBe(400);
    });

    it('groups: a check joins a group of its account only; a group with checks cannot be deleted', async () => {
      const a = await createAccount(vigil);
      const group = await a.owner.post('/v1/check-groups', {
        name: 'Payments',
        tags: ['pay'],
        environmentVariables: [{ key: 'REGION_NAME', value: 'eu' }],
      });
      expect(group.status).toBe(201);
      expect(group.body.environmentVariables).toEqual([{ key: 'REGION_NAME', value: 'eu', locked: false }]);
      const check = await a.owner.post('/v1/checks', { name: 'pay-api', checkType: 'API', groupId: group.body.id });
      expect(check.body.groupId).toBe(group.body.id);
      const blocked = await a.owner.delete(`/v1/check-groups/${group.body.id}`);
      expect(blocked.status).toBe(409);
      const other = await createAccount(vigil);
      const foreign = await other.owner.post('/v1/checks', { name: 'x', checkType: 'API', groupId: group.body.id });
      expect(foreign.status).toBe(400);
      expect(foreign.body.message).toMatch(/groupId/);
      await a.owner.put(`/v1/checks/${check.body.id}`, { name: 'pay-api', checkType: 'API', groupId: null });
      expect((await a.owner.delete(`/v1/check-groups/${group.body.id}`)).status).toBe(204);
    });

    it('keeps checks apart between accounts and by role', async () => {
      const a = await createAccount(vigil);
      const b = await createAccount(vigil);
      const check = await a.owner.post('/v1/checks', { name: 'private', checkType: 'API' });
      expect((await b.owner.get(`/v1/checks/${check.body.id}`)).status).toBe(404);
      expect((await b.owner.delete(`/v1/checks/${check.body.id}`)).status).toBe(404);
      const reader = await a.owner.post('/v1/users', { email: `ro-${Date.now()}@example.com`, role: 'READ_ONLY' });
      const asReader = vigil.as(reader.body.apiKey.key, a.accountId);
      expect((await asReader.get(`/v1/checks/${check.body.id}`)).status).toBe(200);
      expect((await asReader.post('/v1/checks', { name: 'x', checkType: 'API' })).status).toBe(403);
    });
  });
}
