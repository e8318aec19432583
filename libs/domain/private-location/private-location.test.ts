import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import { given } from '../testing.ts';
import {
  MAX_PRIVATE_LOCATION_KEYS,
  privateLocationDecider,
  type PrivateLocation,
  type PrivateLocationEvent,
  type PrivateLocationKey,
} from './private-location.ts';

const now = '2026-11-27T09:00:00.000Z';
const later = '2026-11-27T10:00:00.000Z';
const locationId = '0b8c1f1e-2d3a-4b5c-8d9e-0f1a2b3c4d5e';
const keyId = '1c9d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const hash = 'a'.repeat(64);
const base = { now, actor: 'u-1', locationId, accountId: 'acc-1' };
const slugs = { takenSlugs: [] as string[], publicLocations: ['eu-west-1'] };
const stored: PrivateLocation = {
  id: locationId,
  name: 'Berlin office',
  slugName: 'office-berlin',
  icon: null,
  createdAt: now,
  updatedAt: now,
};
const key: PrivateLocationKey = { id: keyId, hash, last4: 'wxyz', createdAt: now, createdBy: 'u-1' };
const created: PrivateLocationEvent = {
  type: 'PrivateLocationCreated',
  data: { accountId: 'acc-1', location: stored },
};
const keyAdded: PrivateLocationEvent = { type: 'PrivateLocationKeyAdded', data: { key } };

const create = (location: { name: string; slugName: string; icon?: string | null }, context = slugs) =>
  given(privateLocationDecider).when({ ...base, ...context, type: 'CreatePrivateLocation', location });
const addKey = (id = keyId) => ({ ...base, type: 'AddPrivateLocationKey' as const, keyId: id, hash, last4: 'wxyz' });

describe('private location', () => {
  it('given nothing, when created, then it is stored without keys and icon null', () => {
    const state = create({ name: 'Berlin office', slugName: 'office-berlin' }).thenEvents([created]);
    expect(state).toEqual({ status: 'active', accountId: 'acc-1', location: stored, keys: [] });
  });

  it.each([
    ['Office Berlin', /^slugName: must be lower-case letters/],
    ['office--berlin', /^slugName: must be lower-case letters/],
    ['', /^slugName/],
  ])('given nothing, when created with slugName %j, then a 400 names slugName', (slugName, message) => {
    create({ name: 'x', slugName }).thenError(ValidationError, message);
  });

  it('given nothing, when created with a runner location as slug, then refused naming it', () => {
    create({ name: 'x', slugName: 'eu-west-1' }).thenError(
      ValidationError,
      /^slugName: "eu-west-1" is a runner location/,
    );
  });

  it('given another location with the slug, when created, then a conflict', () => {
    create({ name: 'x', slugName: 'office-berlin' }, { ...slugs, takenSlugs: ['office-berlin'] }).thenError(
      ConflictError,
      /^slugName: another private location/,
    );
  });

  it('given a location, when replaced, then name, slug and icon change and updatedAt moves', () => {
    given(privateLocationDecider, [created])
      .when({
        ...base,
        ...slugs,
        now: later,
        type: 'UpdatePrivateLocation',
        location: { name: 'Berlin', slugName: 'berlin', icon: 'location' },
        slugInUse: false,
      })
      .thenEvents([
        {
          type: 'PrivateLocationUpdated',
          data: { location: { ...stored, name: 'Berlin', slugName: 'berlin', icon: 'location', updatedAt: later } },
        },
      ]);
  });

  it('given checks list its slug, when the slug is renamed, then a conflict; the name alone may change', () => {
    const update = (slugName: string) =>
      given(privateLocationDecider, [created]).when({
        ...base,
        ...slugs,
        type: 'UpdatePrivateLocation',
        location: { name: 'Renamed', slugName },
        slugInUse: true,
      });
    update('berlin').thenError(ConflictError, /^slugName: checks or groups list "office-berlin"/);
    expect(update('office-berlin').events()).toHaveLength(1);
  });

  it('given another account, when updated, deleted or given a key, then not found', () => {
    const foreign = { ...base, accountId: 'acc-2' };
    const past = given(privateLocationDecider, [created]);
    past.when({ ...foreign, type: 'DeletePrivateLocation' }).thenError(NotFoundError);
    past.when({ ...addKey(), accountId: 'acc-2' }).thenError(NotFoundError);
    past
      .when({ ...foreign, ...slugs, type: 'UpdatePrivateLocation', location: stored, slugInUse: false })
      .thenError(NotFoundError);
  });

  it('given a location, when keys are added and one revoked, then the others stay', () => {
    const second = '2d0e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a';
    const state = given(privateLocationDecider, [created, keyAdded])
      .when(addKey(second))
      .thenEvents([{ type: 'PrivateLocationKeyAdded', data: { key: { ...key, id: second } } }]);
    expect(state.status === 'active' && state.keys.map((k) => k.id)).toEqual([keyId, second]);
    const revoked = given(privateLocationDecider, [
      created,
      keyAdded,
      { type: 'PrivateLocationKeyAdded', data: { key: { ...key, id: second } } },
    ])
      .when({ ...base, type: 'RevokePrivateLocationKey', keyId })
      .thenEvents([{ type: 'PrivateLocationKeyRevoked', data: { keyId, at: now } }]);
    expect(revoked.status === 'active' && revoked.keys.map((k) => k.id)).toEqual([second]);
  });

  it('given a revoked key, when revoked again, then not found', () => {
    given(privateLocationDecider, [created, keyAdded, { type: 'PrivateLocationKeyRevoked', data: { keyId, at: now } }])
      .when({ ...base, type: 'RevokePrivateLocationKey', keyId })
      .thenError(NotFoundError, /key .* not found/);
  });

  it('given the most keys a location holds, when one more is added, then refused', () => {
    const full = Array.from({ length: MAX_PRIVATE_LOCATION_KEYS }, (_, i): PrivateLocationEvent => ({
      type: 'PrivateLocationKeyAdded',
      data: { key: { ...key, id: `${keyId.slice(0, -2)}${String(i).padStart(2, '0')}` } },
    }));
    given(privateLocationDecider, [created, ...full])
      .when(addKey())
      .thenError(ValidationError, /^keys: .* at most/);
  });

  it('given a location with keys, when deleted, then it is gone and takes no further commands', () => {
    const state = given(privateLocationDecider, [created, keyAdded])
      .when({ ...base, type: 'DeletePrivateLocation' })
      .thenEvents([{ type: 'PrivateLocationDeleted', data: { at: now } }]);
    expect(state).toEqual({ status: 'deleted', accountId: 'acc-1', locationId, deletedAt: now });
    given(privateLocationDecider, [created, keyAdded, { type: 'PrivateLocationDeleted', data: { at: now } }])
      .when(addKey())
      .thenError(NotFoundError);
  });
});
