import { hash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { CachedReadModels, createLocalInvalidation, readModelKeys as keys } from '#readmodels';
import { createSqliteStateStore, type StateStore } from '#statestore';
import type { RouteAccess } from '../access.ts';
import { cachedVerdict, createVerdictMemo, rememberedVerdict } from './auth-cached.ts';

/**
 * The synchronous path admits only what the async path would admit, from entries the read cache
 * holds: every refusal and every entry not held answers undefined (the async path then decides).
 * The cross-replica revocation tests are in test/control-plane/cache-revocation.int.test.ts.
 */
const stores: StateStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

const tokens = { user: 'vgl_user', multi: 'vgl_multi', service: 'vgl_service', admin: 'vgl_admin' };
const digest = (token: string) => hash('sha256', token);
const set = (key: string, value: unknown) => ({ op: 'set' as const, key, value: JSON.stringify(value) });

async function setUp(clock = { now: Date.now() }) {
  const store = createSqliteStateStore({ path: ':memory:' });
  stores.push(store);
  const apiKey = (token: string, doc: Record<string, unknown>) => [
    { op: 'set' as const, key: keys.apiKeyByHash(digest(token)), value: doc.keyId as string },
    set(keys.doc('api-key', doc.keyId as string), { status: 'active', ...doc }),
  ];
  await store.write([
    ...apiKey(tokens.user, { keyId: 'k1', type: 'user', userId: 'u1' }),
    ...apiKey(tokens.multi, { keyId: 'k2', type: 'user', userId: 'u2' }),
    ...apiKey(tokens.service, { keyId: 'k3', type: 'service', accountId: 'a1', role: 'READ_ONLY' }),
    ...apiKey(tokens.admin, { keyId: 'k4', type: 'user', userId: 'u1' }),
    set(keys.doc('user', 'u1'), { status: 'registered', id: 'u1', memberships: { a1: 'READ_WRITE' } }),
    set(keys.doc('user', 'u2'), { status: 'registered', id: 'u2', memberships: { a1: 'ADMIN', a2: 'READ_ONLY' } }),
    set(keys.doc('account', 'a1'), { status: 'active', id: 'a1', name: 'one' }),
    set(keys.doc('account', 'a2'), { status: 'active', id: 'a2', name: 'two' }),
  ]);
  const invalidation = createLocalInvalidation();
  const cache = new CachedReadModels(store, invalidation, { ttlMs: 1000, now: () => clock.now });
  const warm = async () => {
    for (const token of Object.values(tokens)) await cache.apiKeyByHash(digest(token));
    for (const id of ['u1', 'u2']) await cache.user(id);
    for (const id of ['a1', 'a2']) await cache.account(id);
  };
  // The admin digest is a platform key's: the async path must decide it, whatever the key cache says.
  const platform = { isKnownPlatform: (d: string) => d === digest(tokens.admin), version: 1 };
  const requestOf = (token: string | undefined, account: string | undefined) => {
    const headers: Record<string, string> = {};
    if (token !== undefined) headers.authorization = token;
    if (account !== undefined) headers['x-service-account'] = account;
    return { headers, routeOptions: { config: {} } } as unknown as FastifyRequest;
  };
  type Required = Exclude<RouteAccess, 'public' | { agent: true }>;
  const verdict = (token: string | undefined, account: string | undefined, access: RouteAccess) =>
    cachedVerdict(requestOf(token, account), access as Required, cache, platform);
  // One route's memo, as the hook keeps it.
  const memo = createVerdictMemo();
  const remembered = (token: string | undefined, account: string | undefined, access: RouteAccess = readOnly) =>
    rememberedVerdict(requestOf(token, account), access as Required, cache, platform, 'x-service-account', memo);
  return { cache, invalidation, warm, verdict, remembered, platform, memo };
}

const readOnly: RouteAccess = { minRole: 'READ_ONLY' };

describe('auth: the synchronous cached path', () => {
  it('admits from cached entries with the access the async path builds', async () => {
    const { warm, verdict } = await setUp();
    expect(verdict(`Bearer ${tokens.user}`, undefined, readOnly)).toBeUndefined(); // nothing cached yet
    await warm();
    const user = verdict(`Bearer ${tokens.user}`, undefined, readOnly)!;
    expect(user.scope).toBe('a1');
    expect(user.access).toMatchObject({ accountId: 'a1', role: 'READ_WRITE', userId: 'u1', actor: 'u1' });
    expect(user.access!.account.name).toBe('one');
    expect(verdict(`bearer  ${tokens.multi} `, 'a2', readOnly)?.access).toMatchObject({
      accountId: 'a2',
      role: 'READ_ONLY',
    });
    const service = verdict(`Bearer ${tokens.service}`, 'a1', readOnly)!;
    expect(service.access).toMatchObject({ accountId: 'a1', role: 'READ_ONLY', userId: null, actor: 'k3' });
    expect(verdict(`Bearer ${tokens.user}`, undefined, { anyKey: true })).toMatchObject({
      access: null,
      scope: 'key-k1',
    });
  });

  it('never refuses itself: every case the async path refuses, or does not cover, is left to it', async () => {
    const { warm, verdict } = await setUp();
    await warm();
    const refused: [string | undefined, string | undefined, RouteAccess][] = [
      [undefined, undefined, readOnly], // no Authorization header
      [`Basic ${tokens.user}`, undefined, readOnly], // not a bearer token
      ['Bearer vgl_unknown', undefined, readOnly], // unknown key
      [`Bearer ${tokens.admin}`, undefined, readOnly], // a platform key's digest
      [`Bearer ${tokens.user}`, 'a2', readOnly], // not a member of that account
      [`Bearer ${tokens.multi}`, undefined, readOnly], // two memberships, no header
      [`Bearer ${tokens.service}`, 'a2', readOnly], // a service key of another account
      [`Bearer ${tokens.user}`, undefined, { minRole: 'ADMIN' }], // role too low
      [`Bearer ${tokens.service}`, undefined, { minRole: 'READ_WRITE' }],
      [`Bearer ${tokens.user}`, undefined, { platform: 'admin', orMinRole: 'READ_ONLY' }], // platform routes
    ];
    for (const [token, account, access] of refused)
      expect(verdict(token, account, access), `${token} ${account} ${JSON.stringify(access)}`).toBeUndefined();
  });

  it('stops admitting at once when a change is published, and after the TTL', async () => {
    const { cache, invalidation, warm, verdict } = await setUp();
    await warm();
    expect(verdict(`Bearer ${tokens.user}`, undefined, readOnly)).toBeDefined();
    await invalidation.publish();
    expect(verdict(`Bearer ${tokens.user}`, undefined, readOnly)).toBeUndefined();
    await warm();
    expect(verdict(`Bearer ${tokens.user}`, undefined, readOnly)).toBeDefined();
    cache.drop();
    expect(verdict(`Bearer ${tokens.user}`, undefined, readOnly)).toBeUndefined();
  });
});

describe('auth: remembered verdicts (one derivation per key digest and epoch)', () => {
  it('answers as the derivation does, with one frozen verdict per key, account named and route', async () => {
    const { warm, verdict, remembered } = await setUp();
    expect(remembered(`Bearer ${tokens.user}`, undefined)).toBeUndefined(); // nothing cached: nothing remembered
    await warm();
    const first = remembered(`Bearer ${tokens.user}`, undefined)!;
    expect(first).toEqual(verdict(`Bearer ${tokens.user}`, undefined, readOnly));
    expect(remembered(`Bearer ${tokens.user}`, undefined)).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.access) && Object.isFrozen(first.principal)).toBe(true);
    // Another account named with the same key is derived again, refusals included.
    expect(remembered(`Bearer ${tokens.user}`, 'a2')).toBeUndefined();
    expect(remembered(`Bearer ${tokens.multi}`, 'a2')?.access).toMatchObject({ accountId: 'a2', role: 'READ_ONLY' });
    expect(remembered(`Bearer ${tokens.multi}`, 'a1')?.access).toMatchObject({ accountId: 'a1', role: 'ADMIN' });
    expect(remembered(`Bearer ${tokens.multi}`, undefined)).toBeUndefined();
    expect(remembered(`Bearer ${tokens.admin}`, undefined)).toBeUndefined();
  });

  it('forgets at once on a published change, a drop, a gap, the TTL and a platform key change', async () => {
    const clock = { now: 1_000_000 };
    const { cache, invalidation, warm, remembered, platform } = await setUp(clock);
    await warm();
    const user = `Bearer ${tokens.user}`;
    expect(remembered(user, undefined)).toBeDefined();
    await invalidation.publish(); // a revocation, role change or removal anywhere
    expect(remembered(user, undefined)).toBeUndefined();
    await warm();
    expect(remembered(user, undefined)).toBeDefined();
    cache.drop();
    expect(remembered(user, undefined)).toBeUndefined();

    await warm();
    expect(remembered(user, undefined)).toBeDefined();
    clock.now += 1000; // the entries it came from expire
    expect(remembered(user, undefined)).toBeUndefined();

    await warm();
    expect(remembered(user, undefined)).toBeDefined();
    // The admin key read anew: this digest is a platform key's now, and the async path must decide it.
    platform.isKnownPlatform = (d: string) => d === digest(tokens.user);
    platform.version++;
    expect(remembered(user, undefined)).toBeUndefined();
  });

  it('expires with the earliest entry it came from', async () => {
    const clock = { now: 1_000_000 };
    const { cache, warm, remembered } = await setUp(clock);
    await warm();
    clock.now += 600;
    cache.drop();
    // The key and user read now; the account entry read 400 ms later expires last.
    await cache.apiKeyByHash(digest(tokens.user));
    await cache.user('u1');
    clock.now += 400;
    await cache.account('a1');
    expect(remembered(`Bearer ${tokens.user}`, undefined)).toBeDefined();
    clock.now += 600; // the key and user entries are past their TTL, the account's is not
    expect(remembered(`Bearer ${tokens.user}`, undefined)).toBeUndefined();
  });

  it('holds nothing through a gap in invalidation', async () => {
    const store = createSqliteStateStore({ path: ':memory:' });
    stores.push(store);
    let live = true;
    const local = createLocalInvalidation();
    const gappy = { ...local, live: () => live };
    const cache = new CachedReadModels(store, gappy, { ttlMs: 1000 });
    await store.write([
      { op: 'set', key: keys.apiKeyByHash(digest(tokens.service)), value: 'k3' },
      set(keys.doc('api-key', 'k3'), {
        status: 'active',
        keyId: 'k3',
        type: 'service',
        accountId: 'a1',
        role: 'ADMIN',
      }),
      set(keys.doc('account', 'a1'), { status: 'active', id: 'a1', name: 'one' }),
    ]);
    await cache.apiKeyByHash(digest(tokens.service));
    await cache.account('a1');
    const memo = createVerdictMemo();
    const request = { headers: { authorization: `Bearer ${tokens.service}` } } as unknown as FastifyRequest;
    const platform = { isKnownPlatform: () => false, version: 1 };
    const ask = () => rememberedVerdict(request, readOnly as never, cache, platform, 'x-service-account', memo);
    expect(ask()?.scope).toBe('a1');
    live = false;
    expect(ask()).toBeUndefined();
  });
});
