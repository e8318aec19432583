import { describe, expect, it } from 'vitest';
import { numericId } from '../../apps/api/src/checkly/ids.ts';
import { dialectSuite } from './support.ts';

/** Maintenance windows as the Go SDK's MaintenanceWindow type marshals them, under numeric ids. */

const suite = dialectSuite();

describe('maintenance windows in the SDK shape', () => {
  it('create, list, get, update and delete by numeric id, read back through /v1', async () => {
    const sdk = suite.as(suite.owner.ownerKey, suite.owner.accountId);
    const body = {
      id: 0,
      name: 'Weekly deploy',
      startsAt: '2030-01-06T02:00:00.000Z',
      endsAt: '2030-01-06T03:00:00.000Z',
      repeatInterval: 1,
      repeatUnit: 'WEEK',
      tags: ['deploy'],
      created_at: '',
      updated_at: '',
    };
    const created = await sdk.post('/v1/maintenance-windows', body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as number;
    const vigilWindow = ((await suite.owner.owner.get('/v1/maintenance-windows')).body as Array<{ id: string }>)[0]!;
    expect(numericId(vigilWindow.id)).toBe(id);
    expect(vigilWindow).toMatchObject({ name: 'Weekly deploy', repeatUnit: 'WEEK', tags: ['deploy'] });

    const list = await sdk.get('/v1/maintenance-windows?limit=10&page=1');
    expect(list.headers.get('content-range')).toBe('0-0/1');
    expect(list.body[0].id).toBe(id);
    expect((await sdk.get(`/v1/maintenance-windows/${id}`)).body).toMatchObject({ id, name: 'Weekly deploy' });

    // A one-off window: the SDK leaves repeat fields out when zero.
    const put = await sdk.put(`/v1/maintenance-windows/${id}`, {
      id,
      name: 'Migration',
      startsAt: '2030-02-01T00:00:00.000Z',
      endsAt: '2030-02-01T06:00:00.000Z',
      tags: ['db'],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await suite.owner.owner.get(`/v1/maintenance-windows/${vigilWindow.id}`)).body).toMatchObject({
      name: 'Migration',
      repeatUnit: null,
      repeatInterval: null,
      tags: ['db'],
    });
    const bad = await sdk.put(`/v1/maintenance-windows/${id}`, { ...body, repeatUnit: 'YEAR' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('repeatUnit');

    expect(
      (await suite.as(suite.stranger.ownerKey, suite.stranger.accountId).get(`/v1/maintenance-windows/${id}`)).status,
    ).toBe(404);
    expect((await sdk.delete(`/v1/maintenance-windows/${id}`)).status).toBe(204);
    expect((await suite.owner.owner.get(`/v1/maintenance-windows/${vigilWindow.id}`)).status).toBe(404);
  });
});
