import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalogue, stageOn } from '#runtimes';
import { createAccount, type TestVigil } from '#test-vigil';

/** Every rule of the control plane, run against one running Vigil (embedded or on Redis). */
export function controlPlaneSuite(name: string, start: () => Promise<TestVigil>): void {
  describe(`control plane (${name})`, () => {
    let vigil: TestVigil;
    beforeAll(async () => {
      vigil = await start();
    });
    afterAll(async () => {
      await vigil?.stop();
    });

    describe('authentication', () => {
      it('401 without a key, with a malformed header and with an unknown key', async () => {
        const none = await vigil.as(null).get('/v1/accounts/me');
        expect(none.status).toBe(401);
        expect(none.body).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
        expect((await vigil.as(null).get('/v1/variables', { authorization: 'Basic abc' })).status).toBe(401);
        expect((await vigil.as('vgl_' + 'x'.repeat(43)).get('/v1/accounts/me')).status).toBe(401);
      });

      it('a user key of one account needs no header; the owner sees the account', async () => {
        const a = await createAccount(vigil);
        const me = await vigil.as(a.ownerKey).get('/v1/accounts/me');
        expect(me.status).toBe(200);
        expect(me.body).toMatchObject({ id: a.accountId, plan: 'team', runtimeId: '2025.04' });
        expect(me.body.alertSettings.escalationType).toBe('RUN_BASED');
        const list = await vigil.as(a.ownerKey).get('/v1/accounts');
        expect(list.body.map((x: { id: string }) => x.id)).toEqual([a.accountId]);
        expect((await vigil.as(a.ownerKey).get(`/v1/accounts/${a.accountId}`)).status).toBe(200);
      });

      it('a user in two accounts must name one (400 naming the header); a foreign account header is 403, a foreign account id 404', async () => {
        const email = `multi-${Date.now()}@example.com`;
        const a = await createAccount(vigil, 'team', email);
        const b = await createAccount(vigil, 'team', email);
        expect(b.ownerId).toBe(a.ownerId);
        const noHeader = await vigil.as(a.ownerKey).get('/v1/accounts/me');
        expect(noHeader.status).toBe(400);
        expect(noHeader.body.message).toMatch(/X-Service-Account/);
        expect((await vigil.as(a.ownerKey, b.accountId).get('/v1/accounts/me')).body.id).toBe(b.accountId);
        const other = await createAccount(vigil);
        expect((await vigil.as(a.ownerKey, other.accountId).get('/v1/variables')).status).toBe(403);
        expect((await vigil.as(a.ownerKey).get(`/v1/accounts/${other.accountId}`)).status).toBe(404);
        // The header name is case-insensitive.
        expect((await vigil.as(a.ownerKey).get('/v1/accounts/me', { 'X-SERVICE-ACCOUNT': a.accountId })).body.id).toBe(
          a.accountId,
        );
      });

      it('only the platform admin key creates accounts', async () => {
        const a = await createAccount(vigil);
        const attempt = await a.owner.post('/v1/accounts', { name: 'x', plan: 'team', ownerEmail: 'x@example.com' });
        expect(attempt.status).toBe(403);
        const bad = await vigil.admin.post('/v1/accounts', { name: 'x', plan: 'gold', ownerEmail: 'not-an-email' });
        expect(bad.status).toBe(400);
        expect(bad.body.message).toMatch(/plan/);
        expect(bad.body.message).toMatch(/ownerEmail/);
      });
    });

    describe('runtimes', () => {
      it('lists the catalogue and refuses unknown or removed runtimes for accounts', async () => {
        const a = await createAccount(vigil);
        const list = await a.owner.get('/v1/runtimes');
        expect(list.status).toBe(200);
        expect(list.body.map((r: { name: string }) => r.name)).toEqual([
          '2026.04',
          '2025.04',
          '2024.09',
          '2024.02',
          '2023.09',
          '2023.02',
          '2022.10',
        ]);
        // Stages follow the calendar; the test setup installed every runtime not REMOVED today.
        const today = new Date();
        for (const runtime of loadCatalogue()) {
          const listed = list.body.find((r: { name: string }) => r.name === runtime.name);
          const stage = stageOn(runtime, today);
          expect(listed, runtime.name).toMatchObject({ stage, installed: stage !== 'REMOVED' });
          expect(listed.browserSupport).toEqual(runtime.browserSupport);
          expect((await a.owner.get(`/v1/runtimes/${runtime.name}`)).body).toEqual(listed);
        }
        const current = await a.owner.get('/v1/runtimes/2025.04');
        expect(current.body).toMatchObject({ nodeJsVersion: 'v22.11.0', multiStepSupport: true });
        expect((await a.owner.get('/v1/runtimes/2023.02')).body.multiStepSupport).toBe(false);
        expect((await a.owner.get('/v1/runtimes/1999.01')).status).toBe(404);
        const removed = await vigil.admin.post('/v1/accounts', {
          name: 'r',
          plan: 'team',
          ownerEmail: 'r@example.com',
          runtimeId: '2022.10',
        });
        expect(removed.status).toBe(400);
        expect(removed.body.message).toMatch(/runtimeId/);
        expect((await a.owner.patch('/v1/accounts/me', { runtimeId: 'nope' })).status).toBe(400);
        const patched = await a.owner.patch('/v1/accounts/me', { runtimeId: '2026.04', name: 'Renamed' });
        expect(patched.body).toMatchObject({ runtimeId: '2026.04', name: 'Renamed' });
        expect((await a.owner.get('/v1/accounts/me')).body.name).toBe('Renamed');
      });

      it('refuses a runtime past its end of life for accounts, groups and checks, naming it and the current one', async () => {
        const a = await createAccount(vigil);
        const today = new Date();
        // 2024.09 (end of life 2026-09-30) on the day this was written; any runtime removed by the calendar will do.
        const removed = loadCatalogue().find((r) => r.stage !== 'REMOVED' && stageOn(r, today) === 'REMOVED');
        const current = loadCatalogue().find((r) => r.stage === 'CURRENT' && stageOn(r, today) === 'CURRENT');
        expect(removed, 'a runtime the calendar removed').toBeDefined();
        expect(current).toBeDefined();
        const message = new RegExp(`runtimeId: runtime "${removed!.name}" was removed.*"${current!.name}"`);
        const account = await a.owner.patch('/v1/accounts/me', { runtimeId: removed!.name });
        expect(account.status).toBe(400);
        expect(account.body.message).toMatch(message);
        const check = await a.owner.post('/v1/checks', { name: 'x', checkType: 'API', runtimeId: removed!.name });
        expect(check.status).toBe(400);
        expect(check.body.message).toMatch(message);
        const group = await a.owner.post('/v1/check-groups', { name: 'g', runtimeId: removed!.name });
        expect(group.status).toBe(400);
        expect(group.body.message).toMatch(message);
        expect((await a.owner.get('/v1/accounts/me')).body.runtimeId).toBe(current!.name);
      });
    });

    describe('roles, users and keys', () => {
      it('enforces roles: READ_ONLY reads, READ_WRITE writes variables, ADMIN manages users', async () => {
        const a = await createAccount(vigil);
        const reader = await a.owner.post('/v1/users', {
          email: `reader-${Date.now()}@example.com`,
          role: 'READ_ONLY',
        });
        expect(reader.status).toBe(201);
        expect(reader.body.apiKey.key).toMatch(/^vgl_/);
        const readerClient = vigil.as(reader.body.apiKey.key, a.accountId);
        expect((await readerClient.get('/v1/variables')).status).toBe(200);
        const denied = await readerClient.post('/v1/variables', { key: 'A', value: '1' });
        expect(denied.status).toBe(403);
        expect(denied.body.message).toMatch(/READ_WRITE/);
        const writer = await a.owner.post('/v1/users', {
          email: `writer-${Date.now()}@example.com`,
          role: 'READ_WRITE',
        });
        const writerClient = vigil.as(writer.body.apiKey.key, a.accountId);
        expect((await writerClient.post('/v1/variables', { key: 'A', value: '1' })).status).toBe(201);
        expect((await writerClient.post('/v1/users', { email: 'x@example.com', role: 'READ_ONLY' })).status).toBe(403);
        const users = await a.owner.get('/v1/users');
        expect(users.body).toHaveLength(3);
      });

      it('removing a user revokes their key at once; their service key keeps working', async () => {
        const a = await createAccount(vigil, 'enterprise');
        const admin = await a.owner.post('/v1/users', { email: `admin-${Date.now()}@example.com`, role: 'ADMIN' });
        const adminClient = vigil.as(admin.body.apiKey.key, a.accountId);
        const service = await adminClient.post('/v1/api-keys', { name: 'ci', type: 'service', role: 'READ_WRITE' });
        expect(service.status).toBe(201);
        expect(service.body).toMatchObject({ type: 'service', role: 'READ_WRITE' });
        expect((await a.owner.delete(`/v1/users/${admin.body.user.id}`)).status).toBe(204);
        expect((await adminClient.get('/v1/variables')).status).toBe(403);
        const serviceClient = vigil.as(service.body.key);
        expect((await serviceClient.post('/v1/variables', { key: 'FROM_SERVICE', value: 'v' })).status).toBe(201);
        expect((await serviceClient.get('/v1/accounts/me')).body.id).toBe(a.accountId);
        const elsewhere = await createAccount(vigil, 'enterprise');
        expect((await vigil.as(service.body.key, elsewhere.accountId).get('/v1/variables')).status).toBe(403);
      });

      it('service keys need the enterprise plan (402) and ADMIN (403)', async () => {
        const team = await createAccount(vigil, 'team');
        const attempt = await team.owner.post('/v1/api-keys', { name: 'svc', type: 'service', role: 'READ_ONLY' });
        expect(attempt.status).toBe(402);
        const ent = await createAccount(vigil, 'enterprise');
        const writer = await ent.owner.post('/v1/users', { email: `w-${Date.now()}@example.com`, role: 'READ_WRITE' });
        const asWriter = vigil.as(writer.body.apiKey.key, ent.accountId);
        expect((await asWriter.post('/v1/api-keys', { name: 'svc', type: 'service', role: 'READ_ONLY' })).status).toBe(
          403,
        );
      });

      it('keys are listed without secrets; only the owner deletes a user key; a deleted key is 401', async () => {
        const a = await createAccount(vigil);
        const extra = await a.owner.post('/v1/api-keys', { name: 'laptop', type: 'user' });
        expect(extra.status).toBe(201);
        const listed = await a.owner.get('/v1/api-keys');
        expect(listed.body).toHaveLength(2);
        expect(JSON.stringify(listed.body)).not.toContain(extra.body.key);
        expect(listed.body.find((k: { id: string }) => k.id === extra.body.id).last4).toBe(extra.body.key.slice(-4));
        const colleague = await a.owner.post('/v1/users', { email: `c-${Date.now()}@example.com`, role: 'OWNER' });
        const asColleague = vigil.as(colleague.body.apiKey.key, a.accountId);
        expect((await asColleague.delete(`/v1/api-keys/${extra.body.id}`)).status).toBe(404);
        expect((await a.owner.delete(`/v1/api-keys/${extra.body.id}`)).status).toBe(204);
        expect((await vigil.as(extra.body.key).get('/v1/accounts/me')).status).toBe(401);
        expect((await a.owner.delete('/v1/api-keys/00000000-0000-4000-8000-000000000000')).status).toBe(404);
      });
    });

    describe('variables', () => {
      it('creates, lists sorted and paged, updates, deletes; duplicates are 409, unknown keys 404', async () => {
        const a = await createAccount(vigil);
        for (const key of ['B', 'A', 'C'])
          expect((await a.owner.post('/v1/variables', { key, value: `v-${key}` })).status).toBe(201);
        expect((await a.owner.post('/v1/variables', { key: 'A', value: 'again' })).status).toBe(409);
        const page1 = await a.owner.get('/v1/variables?limit=2&page=1');
        expect(page1.body.map((v: { key: string }) => v.key)).toEqual(['A', 'B']);
        expect(page1.headers.get('x-total-count')).toBe('3');
        expect((await a.owner.get('/v1/variables?limit=2&page=2')).body.map((v: { key: string }) => v.key)).toEqual([
          'C',
        ]);
        expect((await a.owner.put('/v1/variables/A', { value: 'new' })).body).toEqual({
          key: 'A',
          value: 'new',
          locked: false,
          secret: false,
        });
        expect((await a.owner.get('/v1/variables/A')).body.value).toBe('new');
        expect((await a.owner.delete('/v1/variables/A')).status).toBe(204);
        expect((await a.owner.get('/v1/variables/A')).status).toBe(404);
        expect((await a.owner.delete('/v1/variables/A')).status).toBe(404);
        expect((await a.owner.put('/v1/variables/NOPE', { value: 'x' })).status).toBe(404);
      });

      it('validates keys, values and list parameters with messages that name the field', async () => {
        const a = await createAccount(vigil);
        const badKey = await a.owner.post('/v1/variables', { key: '1bad-key', value: 'x' });
        expect(badKey.status).toBe(400);
        expect(badKey.body.message).toMatch(/key/);
        const tooLong = await a.owner.post('/v1/variables', { key: 'BIG', value: 'x'.repeat(10_001) });
        expect(tooLong.status).toBe(400);
        expect(tooLong.body.message).toMatch(/value/);
        expect((await a.owner.get('/v1/variables?limit=101')).body.message).toMatch(/limit/);
        const notJson = await a.owner.request('POST', '/v1/variables', {
          raw: '{"key": ',
          headers: { 'content-type': 'application/json' },
        });
        expect(notJson.status).toBe(400);
        expect(notJson.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
        const mismatch = await (async () => {
          await a.owner.post('/v1/variables', { key: 'K', value: '1' });
          return a.owner.put('/v1/variables/K', { key: 'OTHER', value: '2' });
        })();
        expect(mismatch.status).toBe(400);
        expect(mismatch.body.message).toMatch(/key/);
      });

      it('masks locked values except for their creator and admins, and secrets for everyone', async () => {
        const a = await createAccount(vigil);
        const writer = await a.owner.post('/v1/users', { email: `mw-${Date.now()}@example.com`, role: 'READ_WRITE' });
        const reader = await a.owner.post('/v1/users', { email: `mr-${Date.now()}@example.com`, role: 'READ_ONLY' });
        const asWriter = vigil.as(writer.body.apiKey.key, a.accountId);
        const asReader = vigil.as(reader.body.apiKey.key, a.accountId);
        await asWriter.post('/v1/variables', { key: 'LOCKED', value: 'hidden', locked: true });
        await a.owner.post('/v1/variables', { key: 'OWNER_LOCKED', value: 'owner-hidden', locked: true });
        const secret = await a.owner.post('/v1/variables', { key: 'SECRET', value: 's3cr3t-value', secret: true });
        expect(secret.body.value).toBe('********');
        expect((await asWriter.get('/v1/variables/LOCKED')).body.value).toBe('hidden'); // creator
        expect((await a.owner.get('/v1/variables/LOCKED')).body.value).toBe('hidden'); // OWNER
        expect((await asReader.get('/v1/variables/LOCKED')).body.value).toBe('********');
        expect((await asWriter.get('/v1/variables/OWNER_LOCKED')).body.value).toBe('********');
        for (const client of [a.owner, asWriter, asReader]) {
          expect((await client.get('/v1/variables/SECRET')).body.value).toBe('********');
          const listed = await client.get('/v1/variables?limit=100');
          expect(JSON.stringify(listed.body)).not.toContain('s3cr3t-value');
        }
      });

      it('a secret stays secret: secret:false is 400 and changes nothing; leaving it out keeps it secret', async () => {
        const a = await createAccount(vigil);
        await a.owner.post('/v1/variables', { key: 'TOKEN', value: 'first' });
        expect((await a.owner.put('/v1/variables/TOKEN', { value: 'second', secret: true })).body.secret).toBe(true);
        const unlock = await a.owner.put('/v1/variables/TOKEN', { value: 'third', secret: false });
        expect(unlock.status).toBe(400);
        expect(unlock.body.message).toMatch(/secret/);
        const kept = await a.owner.put('/v1/variables/TOKEN', { value: 'fourth' });
        expect(kept.body).toEqual({ key: 'TOKEN', value: '********', locked: false, secret: true });
      });

      it('keeps accounts apart: a key of A never sees B, even naming B in the header', async () => {
        const a = await createAccount(vigil);
        const b = await createAccount(vigil);
        await b.owner.post('/v1/variables', { key: 'B_ONLY', value: 'b-value' });
        expect((await vigil.as(a.ownerKey, b.accountId).get('/v1/variables/B_ONLY')).status).toBe(403);
        expect((await a.owner.get('/v1/variables/B_ONLY')).status).toBe(404);
        expect((await a.owner.get('/v1/variables?limit=100')).body).toEqual([]);
      });

      it('twenty parallel PUTs each succeed in turn or get 409, and no successful update is lost', async () => {
        const a = await createAccount(vigil);
        await a.owner.post('/v1/variables', { key: 'RACE', value: 'start' });
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => a.owner.put('/v1/variables/RACE', { value: `v${i}` })),
        );
        const statuses = results.map((r) => r.status);
        expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
        const winners = results.filter((r) => r.status === 200).map((r) => r.body.value as string);
        expect(winners.length).toBeGreaterThanOrEqual(1);
        const events = await vigil.running.platform.eventStore.readStream(`variable-${a.accountId}-RACE`);
        const updates = events.filter((e) => e.type === 'VariableUpdated').map((e) => e.data.value);
        // Every 200 is one appended update, in order; the final state is the last of them.
        expect(updates.sort()).toEqual([...winners].sort());
        const last = events.at(-1)!.data.value;
        expect((await a.owner.get('/v1/variables/RACE')).body.value).toBe(last);
      });
    });

    describe('idempotency keys', () => {
      it('replays the first response for the same key and body, 409 for another body', async () => {
        const a = await createAccount(vigil);
        const headers = { 'idempotency-key': `idem-${Date.now()}` };
        const first = await a.owner.post('/v1/variables', { key: 'IDEM', value: '1' }, headers);
        const again = await a.owner.post('/v1/variables', { key: 'IDEM', value: '1' }, headers);
        expect(first.status).toBe(201);
        expect(again.status).toBe(201);
        expect(again.body).toEqual(first.body);
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect((await a.owner.post('/v1/variables', { key: 'IDEM', value: '2' }, headers)).status).toBe(409);
        const keyA = await vigil.admin.post(
          '/v1/accounts',
          { name: 'Idem', plan: 'team', ownerEmail: `idem-${Date.now()}@example.com` },
          { 'idempotency-key': 'acct-1' },
        );
        const keyB = await vigil.admin.post(
          '/v1/accounts',
          { name: 'Idem', plan: 'team', ownerEmail: keyA.body.owner.email },
          { 'idempotency-key': 'acct-1' },
        );
        expect(keyB.body.account.id).toBe(keyA.body.account.id);
      });
    });

    describe('api conventions', () => {
      it('answers unknown routes and oversized bodies with the error shape', async () => {
        const missing = await vigil.as(null).get('/v1/nothing-here');
        // The message names the method, never the raw path (which an attacker controls).
        expect(missing.body).toEqual({ statusCode: 404, error: 'Not Found', message: expect.stringContaining('GET') });
        expect(missing.body.message).not.toContain('nothing-here');
        const a = await createAccount(vigil);
        const huge = await a.owner.post('/v1/variables', { key: 'HUGE', value: 'x'.repeat(2 * 1024 * 1024) });
        expect(huge.status).toBe(413);
        expect(huge.body.statusCode).toBe(413);
      });

      it('sends rate-limit headers', async () => {
        const a = await createAccount(vigil);
        const response = await a.owner.get('/v1/variables');
        expect(Number(response.headers.get('ratelimit-limit'))).toBeGreaterThan(0);
        expect(response.headers.get('ratelimit-remaining')).not.toBeNull();
        expect(Number(response.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
      });

      it('documents every /v1 operation with its error responses', async () => {
        const doc = (await vigil.as(null).get('/openapi.json')).body as {
          openapi: string;
          paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
        };
        expect(doc.openapi).toBe('3.1.0');
        const operations = Object.entries(doc.paths)
          // /v1/public/* is what a public status page serves: no key, so no 401.
          // A trigger URL's token is its credential: no key, so no 401 either.
          .filter(
            ([path]) =>
              path.startsWith('/v1/') && !path.startsWith('/v1/public/') && !path.endsWith('/trigger/{token}'),
          )
          .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));
        expect(operations.length).toBeGreaterThanOrEqual(15);
        for (const { path, method, op } of operations) {
          expect(Object.keys(op.responses), `${method} ${path}`).toContain('401');
        }
        expect((await vigil.as(null).get('/docs/')).status).toBe(200);
      });
    });
  });
}
