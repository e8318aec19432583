import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { client, createAccount, startVigil, type TestVigil } from '#test-vigil';
import { rebuildReadModels } from '../../apps/projector/index.ts';

/**
 * The dialect's numeric ids come from the events, not from a counter beside the read models:
 * after the read models are rebuilt from position zero, every group, channel and window keeps
 * its number, and the numbers still name the same resources.
 */
let vigil: TestVigil;
beforeAll(async () => {
  vigil = await startVigil({ env: { VIGIL_STANDALONE_APPS: 'api,projector' } });
});
afterAll(async () => vigil?.stop());

describe('numeric ids through a read-model rebuild', () => {
  it('are the same afterwards and resolve to the same resources', async () => {
    const owner = await createAccount(vigil, 'team');
    const sdk = () => {
      const api = client(`${vigil.url}/checkly`, owner.ownerKey);
      const headers = { 'x-checkly-account': owner.accountId };
      return {
        get: (path: string) => api.get(path, headers),
        post: (path: string, body: unknown) => api.post(path, body, headers),
      };
    };
    const group = await sdk().post('/v1/check-groups', { name: 'Payments' });
    const channel = await sdk().post('/v1/alert-channels', {
      id: 0,
      type: 'EMAIL',
      config: { address: 'a@example.com' },
    });
    const window = await sdk().post('/v1/maintenance-windows', {
      name: 'Deploy',
      startsAt: '2030-01-01T00:00:00.000Z',
      endsAt: '2030-01-01T01:00:00.000Z',
      tags: ['x'],
    });
    for (const created of [group, channel, window]) expect(created.status, JSON.stringify(created.body)).toBe(201);
    const ids = { group: group.body.id, channel: channel.body.id, window: window.body.id };

    await vigil.running.lifecycle.stop();
    vigil = await startVigil({ dataDir: vigil.dataDir, keepData: true, env: { VIGIL_STANDALONE_APPS: 'api' } });
    await rebuildReadModels(vigil.running.platform, createLogger({ level: 'silent' }));

    expect((await sdk().get('/v1/check-groups')).body.map((g: { id: number }) => g.id)).toEqual([ids.group]);
    expect((await sdk().get(`/v1/check-groups/${ids.group}`)).body).toMatchObject({ name: 'Payments' });
    expect((await sdk().get(`/v1/alert-channels/${ids.channel}`)).body).toMatchObject({ type: 'EMAIL' });
    expect((await sdk().get(`/v1/maintenance-windows/${ids.window}`)).body).toMatchObject({ name: 'Deploy' });
  });
});
