import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type ApiClient, type TestVigil } from '#test-vigil';

// What would make every delivery of a channel fail is refused when the channel is saved, with
// the same rule the sender applies, instead of being accepted and failing every alert later.
describe('alert channels: undeliverable configs are refused on save', () => {
  let vigil: TestVigil;
  let owner: ApiClient;
  const config = (extra: Record<string, unknown>) => ({
    config: { name: 'Ops', url: 'https://example.com/hook', ...extra },
  });

  beforeAll(async () => {
    vigil = await startVigil();
    owner = (await createAccount(vigil)).owner;
  });
  afterAll(async () => {
    await vigil?.stop();
  });

  it("preview signs with a saved channel's secret only for that channel's account, and never shows it", async () => {
    const saved = await owner.post(
      '/v1/alert-channels',
      config({ webhookSecret: 'whsec_c2VjcmV0LWtleS1tYXRlcmlhbA==' }),
    );
    expect(saved.status).toBe(201);
    const body = { config: { name: 'P', url: 'https://example.com/hook' }, channelId: saved.body.id };
    const own = await owner.post('/v1/alert-channels/preview', body);
    expect(own.status).toBe(200);
    expect(own.body.headers).toMatchObject({ 'webhook-signature': '********', 'x-service-signature': '********' });
    expect(JSON.stringify(own.body)).not.toContain('c2VjcmV0LWtleS1tYXRlcmlhbA');
    const unsigned = await owner.post('/v1/alert-channels/preview', { config: body.config });
    expect(unsigned.body.headers['webhook-signature']).toBeUndefined();
    const other = (await createAccount(vigil)).owner;
    const foreign = await other.post('/v1/alert-channels/preview', body);
    expect(foreign.status).toBe(404);
  });

  it('a whsec_ secret that is not base64 gets 400 naming the field, on create, update and preview', async () => {
    const bad = config({ webhookSecret: 'whsec_not-base64!' });
    const created = await owner.post('/v1/alert-channels', bad);
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    expect(created.body.message).toMatch(/config\.webhookSecret: .*base64/);

    const good = await owner.post(
      '/v1/alert-channels',
      config({ webhookSecret: 'whsec_c2VjcmV0LWtleS1tYXRlcmlhbA==' }),
    );
    expect(good.status).toBe(201);
    const updated = await owner.put(`/v1/alert-channels/${good.body.id}`, bad);
    expect(updated.status).toBe(400);
    expect(updated.body.message).toMatch(/config\.webhookSecret/);

    const preview = await owner.post('/v1/alert-channels/preview', bad);
    expect(preview.status).toBe(400);
    expect(preview.body.message).toMatch(/config\.webhookSecret/);
  });

  it('a plain (non-whsec_) secret is still accepted', async () => {
    expect((await owner.post('/v1/alert-channels', config({ webhookSecret: 'plain secret' }))).status).toBe(201);
  });

  it('what only shows when sending is the channel error state: the last refused delivery is in problems', async () => {
    // Loopback is refused by the address policy at connect time (private addresses are not allowed here).
    const created = await owner.post('/v1/alert-channels', config({ url: 'http://127.0.0.1:9/hook' }));
    expect(created.status).toBe(201);
    expect(created.body.problems).toEqual([]);
    const test = await owner.post(`/v1/alert-channels/${created.body.id}/test`);
    expect(test.body.outcome).toBe('refused');
    const one = await owner.get(`/v1/alert-channels/${created.body.id}`);
    expect(one.body.problems).toHaveLength(1);
    expect(one.body.problems[0]).toMatch(/last delivery .* was refused: .*loopback/);
    const list = await owner.get('/v1/alert-channels?limit=100');
    const listed = list.body.find((c: { id: string }) => c.id === created.body.id);
    expect(listed.problems).toEqual(one.body.problems);
  });

  it('a header name HTTP does not allow gets 400 naming the header', async () => {
    const response = await owner.post(
      '/v1/alert-channels',
      config({
        headers: [
          { key: 'X-Ok', value: '1' },
          { key: 'Bad Header:', value: '2' },
        ],
      }),
    );
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/config\.headers\[1\]\.key/);
  });
});
