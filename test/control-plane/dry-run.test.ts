import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type ApiClient, type TestVigil } from '#test-vigil';

// ?dryRun=true (issue 23, item 1): a write route runs every lookup, validation and decision a real
// request would, answers what would happen, and appends nothing to the event store.

let vigil: TestVigil;
let owner: ApiClient;
let ownerId: string;

beforeAll(async () => {
  vigil = await startVigil();
  const account = await createAccount(vigil, 'enterprise');
  owner = account.owner;
  ownerId = account.ownerId;
}, 120_000);
afterAll(async () => vigil?.stop());

const head = () => vigil.running.platform.eventStore.headPosition();
const check = { name: 'Shop', checkType: 'API', frequency: 5, request: { url: 'https://example.com/' } };

/** Runs `work` and asserts the event store did not move. */
async function writesNothing<T>(work: () => Promise<T>): Promise<T> {
  const before = await head();
  const result = await work();
  expect(await head()).toBe(before);
  return result;
}

describe('dry runs of write routes', () => {
  it('a create answers 200 with the would-be check, marked as a dry run, and creates nothing', async () => {
    const answer = await writesNothing(() => owner.post('/v1/checks?dryRun=true', check));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.headers.get('vigil-dry-run')).toBe('true');
    expect(answer.body).toMatchObject({ name: 'Shop', frequency: 5, degradedResponseTime: 5000 });
    const listed = await owner.get('/v1/checks');
    expect(listed.body).toEqual([]);
    expect((await owner.get(`/v1/checks/${answer.body.id}`)).status).toBe(404);
  });

  it('refuses exactly what the real request refuses, with the same status and message', async () => {
    for (const body of [
      { ...check, frequency: 7 },
      { ...check, degradedResponseTme: 10 },
      { ...check, degradedResponseTime: 30_000, maxResponseTime: 20_000 },
      { ...check, groupId: '00000000-0000-4000-8000-000000000000' },
    ]) {
      const dry = await writesNothing(() => owner.post('/v1/checks?dryRun=true', body));
      const real = await owner.post('/v1/checks', body);
      expect(dry.status, JSON.stringify(dry.body)).toBe(400);
      expect(dry.body).toEqual(real.body);
    }
    const dry = await writesNothing(() => owner.post('/v1/checks?dryRun=true', { ...check, frequency: 7 }));
    expect(dry.body.message).toMatch(/frequency/);
    // Headers too: an Idempotency-Key the real request would refuse (schemathesis found it passing).
    const longKey = { 'idempotency-key': 'k'.repeat(256) };
    const dryKey = await writesNothing(() => owner.post('/v1/check-groups?dryRun=true', { name: 'G' }, longKey));
    const realKey = await owner.post('/v1/check-groups', { name: 'G' }, longKey);
    expect([dryKey.status, realKey.status]).toEqual([400, 400]);
    expect(dryKey.body).toEqual(realKey.body);
  });

  it('updates and deletes are decided against the stored state and change nothing', async () => {
    const created = await owner.post('/v1/checks', check);
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const update = await writesNothing(() => owner.put(`/v1/checks/${id}?dryRun=true`, { ...check, name: 'Renamed' }));
    expect(update.status).toBe(200);
    expect(update.body).toMatchObject({ id, name: 'Renamed' });
    expect((await owner.get(`/v1/checks/${id}`)).body.name).toBe('Shop');

    const remove = await writesNothing(() => owner.delete(`/v1/checks/${id}?dryRun=true`));
    expect(remove.status).toBe(204);
    expect((await owner.get(`/v1/checks/${id}`)).status).toBe(200);

    const unknown = await writesNothing(() =>
      owner.delete('/v1/checks/00000000-0000-4000-8000-000000000000?dryRun=true'),
    );
    expect(unknown.status).toBe(404);
    expect((await owner.delete(`/v1/checks/${id}`)).status).toBe(204);
  });

  it('groups, channels, subscriptions, windows, status pages and variables take it too', async () => {
    const group = await writesNothing(() => owner.post('/v1/check-groups?dryRun=true', { name: 'G' }));
    expect(group.status, JSON.stringify(group.body)).toBe(200);
    const channel = { type: 'WEBHOOK', config: { name: 'Hook', url: 'https://hooks.example.com/x' } };
    const dryChannel = await writesNothing(() => owner.post('/v1/alert-channels?dryRun=true', channel));
    expect(dryChannel.status, JSON.stringify(dryChannel.body)).toBe(200);
    const window = { name: 'Deploy', tags: ['web'], startsAt: '2030-01-01T00:00:00Z', endsAt: '2030-01-01T01:00:00Z' };
    const dryWindow = await writesNothing(() => owner.post('/v1/maintenance-windows?dryRun=true', window));
    expect(dryWindow.status, JSON.stringify(dryWindow.body)).toBe(200);
    const page = await writesNothing(() =>
      owner.post('/v1/status-pages?dryRun=true', { title: 'Status', slug: `dry-${Date.now()}`, checkIds: [] }),
    );
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    const variable = await writesNothing(() => owner.post('/v1/variables?dryRun=true', { key: 'DRY', value: 'x' }));
    expect(variable.status, JSON.stringify(variable.body)).toBe(200);
    expect((await owner.get('/v1/variables/DRY')).status).toBe(404);

    const realChannel = await owner.post('/v1/alert-channels', channel);
    const subscription = await writesNothing(() =>
      owner.put(`/v1/alert-channels/${realChannel.body.id}/subscriptions?dryRun=true`, {
        checkId: '00000000-0000-4000-8000-000000000000',
        activated: true,
      }),
    );
    expect(subscription.status).toBe(404);
  });

  it('a taken slug is a 409 in a dry run as it is for real, and dryRun=false writes', async () => {
    const slug = `taken-${Date.now()}`;
    expect((await owner.post('/v1/status-pages', { title: 'A', slug, checkIds: [] })).status).toBe(201);
    const dry = await writesNothing(() =>
      owner.post('/v1/status-pages?dryRun=true', { title: 'B', slug, checkIds: [] }),
    );
    expect(dry.status).toBe(409);
    const real = await owner.post('/v1/check-groups?dryRun=false', { name: 'Real' });
    expect(real.status).toBe(201);
    expect(real.headers.get('vigil-dry-run')).toBeNull();
  });

  it('account settings, members and keys: decided as for real, nothing changed', async () => {
    const before = (await owner.get('/v1/accounts/me')).body;
    const renamed = await writesNothing(() => owner.patch('/v1/accounts/me?dryRun=true', { name: 'Renamed Inc' }));
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.name).toBe('Renamed Inc');
    expect((await owner.get('/v1/accounts/me')).body.name).toBe(before.name);

    const demoteLastOwner = { role: 'READ_ONLY' };
    const dry = await writesNothing(() => owner.patch(`/v1/users/${ownerId}?dryRun=true`, demoteLastOwner));
    const real = await owner.patch(`/v1/users/${ownerId}`, demoteLastOwner);
    expect(dry.status).toBe(409);
    expect(dry.body).toEqual(real.body);

    const key = await writesNothing(() =>
      owner.delete('/v1/api-keys/00000000-0000-4000-8000-000000000000?dryRun=true'),
    );
    expect(key.status).toBe(404);
  });

  it('is documented on every route that takes it, and refused where it does not apply', async () => {
    const document = (await vigil.admin.get('/openapi.json')).body as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>>;
    };
    const takes = (path: string, method: string) =>
      (document.paths[path]?.[method]?.parameters ?? []).some((p) => p.in === 'query' && p.name === 'dryRun');
    expect(takes('/v1/checks', 'post')).toBe(true);
    expect(takes('/v1/checks/{id}', 'put')).toBe(true);
    expect(takes('/v1/checks/{id}', 'delete')).toBe(true);
    expect(takes('/v1/alert-channels/{id}/subscriptions', 'put')).toBe(true);
    expect(takes('/v1/checks', 'get')).toBe(false);
    const refused = await owner.post('/v1/checks/test?dryRun=true', check);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/dryRun/);
  });
});
