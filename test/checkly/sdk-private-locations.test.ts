import { describe, expect, it } from 'vitest';
import { dialectSuite } from './support.ts';

/**
 * Private locations as the Go SDK (types.go at be7d3f0) writes them, and a check's
 * privateLocations, which Vigil keeps by slug among the check's locations.
 */

const suite = dialectSuite();

describe('private locations in the SDK shape', () => {
  it('create, list, update, keys and a check that runs there, read back through /v1', async () => {
    const sdk = suite.as(suite.owner.ownerKey, suite.owner.accountId);
    const created = await sdk.post('/v1/private-locations', {
      id: '',
      name: 'Berlin office',
      slugName: 'office-berlin',
      created_at: '',
      updated_at: '',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    expect((await suite.owner.owner.get(`/v1/private-locations/${id}`)).body).toMatchObject({
      slugName: 'office-berlin',
    });
    const list = await sdk.get('/v1/private-locations');
    expect(list.headers.get('content-range')).toBe('0-0/1');

    // A PUT sends back the read-only fields of the SDK's type (keys, timestamps): ignored, the location replaced.
    const put = await sdk.put(`/v1/private-locations/${id}`, {
      id,
      name: 'Berlin HQ',
      slugName: 'office-berlin',
      icon: 'location',
      keys: created.body.keys,
      created_at: '2030-01-01T00:00:00.000Z',
      updated_at: '2030-01-01T00:00:00.000Z',
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await suite.owner.owner.get(`/v1/private-locations/${id}`)).body).toMatchObject({
      name: 'Berlin HQ',
      icon: 'location',
    });

    const key = await sdk.post(`/v1/private-locations/${id}/keys`);
    expect(key.status, JSON.stringify(key.body)).toBe(201);
    expect(key.body.rawKey).toMatch(/^pl_/);

    const check = await sdk.post('/v1/checks/api', {
      name: 'Intranet',
      checkType: 'API',
      locations: ['eu-west-1'],
      privateLocations: ['office-berlin'],
      request: { method: 'GET', url: 'https://intranet.example.com/', assertions: [] },
    });
    expect(check.status, JSON.stringify(check.body)).toBe(201);
    expect(check.body).toMatchObject({ locations: ['eu-west-1'], privateLocations: ['office-berlin'] });
    expect((await suite.owner.owner.get(`/v1/checks/${check.body.id}`)).body.locations).toEqual([
      'eu-west-1',
      'office-berlin',
    ]);
    const unknown = await sdk.post('/v1/checks/api', { name: 'X', checkType: 'API', privateLocations: ['nowhere'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('nowhere');

    expect(
      (await suite.as(suite.stranger.ownerKey, suite.stranger.accountId).get(`/v1/private-locations/${id}`)).status,
    ).toBe(404);
    expect((await sdk.delete(`/v1/private-locations/${id}/keys/${key.body.id}`)).status).toBe(204);
    expect((await sdk.delete(`/v1/checks/${check.body.id}`)).status).toBe(204);
    expect((await sdk.delete(`/v1/private-locations/${id}`)).status).toBe(204);
    expect((await suite.owner.owner.get(`/v1/private-locations/${id}`)).status).toBe(404);
  });
});
