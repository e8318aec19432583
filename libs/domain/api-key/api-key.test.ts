import { describe, expect, it } from 'vitest';
import { ConflictError, ForbiddenError, NotFoundError, PlanRequiredError, ValidationError } from '#core';
import { given } from '../testing.ts';
import { apiKeyDecider, type ApiKeyEvent, type CreateApiKey } from './api-key.ts';

const now = '2025-01-02T03:04:05.000Z';
const hash = 'a'.repeat(64);

const createUserKey: CreateApiKey = {
  type: 'CreateApiKey',
  now,
  actor: 'u-1',
  keyId: 'k-1',
  name: 'laptop',
  keyType: 'user',
  userId: 'u-1',
  accountId: null,
  role: null,
  hash,
  last4: 'wxyz',
  actorRole: 'READ_ONLY',
};

const createServiceKey: CreateApiKey = {
  ...createUserKey,
  keyId: 'k-2',
  name: 'ci',
  keyType: 'service',
  userId: null,
  accountId: 'acc-1',
  role: 'READ_WRITE',
  actorRole: 'ADMIN',
  accountPlan: 'enterprise',
};

const userKeyCreated: ApiKeyEvent = {
  type: 'ApiKeyCreated',
  data: {
    keyId: 'k-1',
    name: 'laptop',
    type: 'user',
    userId: 'u-1',
    accountId: null,
    role: null,
    hash,
    last4: 'wxyz',
    createdBy: 'u-1',
    createdAt: now,
  },
};
const serviceKeyCreated: ApiKeyEvent = {
  type: 'ApiKeyCreated',
  data: {
    keyId: 'k-2',
    name: 'ci',
    type: 'service',
    userId: null,
    accountId: 'acc-1',
    role: 'READ_WRITE',
    hash,
    last4: 'wxyz',
    createdBy: 'u-1',
    createdAt: now,
  },
};
const revoked: ApiKeyEvent = { type: 'ApiKeyRevoked', data: { revokedBy: 'u-1', at: now } };

describe('api key: create', () => {
  it('creates a user key', () => {
    const state = given(apiKeyDecider).when(createUserKey).thenEvents([userKeyCreated]);
    expect(state).toEqual({ status: 'active', ...userKeyCreated.data });
  });

  it('creates a service key for an ADMIN on the enterprise plan', () => {
    given(apiKeyDecider).when(createServiceKey).thenEvents([serviceKeyCreated]);
    given(apiKeyDecider)
      .when({ ...createServiceKey, actorRole: 'OWNER' })
      .thenEvents([serviceKeyCreated]);
  });

  it('creates a key only once, even after it was revoked', () => {
    given(apiKeyDecider, [userKeyCreated]).when(createUserKey).thenError(ConflictError);
    given(apiKeyDecider, [userKeyCreated, revoked]).when(createUserKey).thenError(ConflictError);
  });

  it('refuses a user key without a user, or with a role or account', () => {
    const when = given(apiKeyDecider).when;
    when({ ...createUserKey, userId: null }).thenError(ValidationError, /^userId/);
    when({ ...createUserKey, role: 'ADMIN' }).thenError(ValidationError, /^role/);
    when({ ...createUserKey, accountId: 'acc-1' }).thenError(ValidationError, /^accountId/);
  });

  it('refuses a service key without an account or a role', () => {
    const when = given(apiKeyDecider).when;
    when({ ...createServiceKey, accountId: null }).thenError(ValidationError, /^accountId/);
    when({ ...createServiceKey, role: null }).thenError(ValidationError, /^role/);
  });

  it('refuses a service key to an actor below ADMIN', () => {
    const when = given(apiKeyDecider).when;
    when({ ...createServiceKey, actorRole: 'READ_WRITE' }).thenError(ForbiddenError, /ADMIN/);
    when({ ...createServiceKey, actorRole: null }).thenError(ForbiddenError);
  });

  it('refuses a service key outside the enterprise plan with 402', () => {
    given(apiKeyDecider)
      .when({ ...createServiceKey, accountPlan: 'team' })
      .thenError(PlanRequiredError, /enterprise/);
    given(apiKeyDecider)
      .when({ ...createServiceKey, accountPlan: 'hobby' })
      .thenError(PlanRequiredError);
  });

  it('refuses a malformed hash or last4', () => {
    given(apiKeyDecider)
      .when({ ...createUserKey, hash: 'xyz' })
      .thenError(ValidationError, /^hash/);
    given(apiKeyDecider)
      .when({ ...createUserKey, last4: 'abcde' })
      .thenError(ValidationError, /^last4/);
  });
});

describe('api key: revoke', () => {
  const revokeUserKey = {
    type: 'RevokeApiKey',
    now,
    actor: 'u-1',
    keyId: 'k-1',
    actorUserId: 'u-1',
    actorRole: 'READ_ONLY',
  } as const;

  it('lets the owning user revoke a user key', () => {
    const state = given(apiKeyDecider, [userKeyCreated]).when(revokeUserKey).thenEvents([revoked]);
    expect(state).toMatchObject({ status: 'revoked', revokedBy: 'u-1', revokedAt: now, keyId: 'k-1' });
  });

  it('answers another user, even an OWNER, as if the user key did not exist', () => {
    given(apiKeyDecider, [userKeyCreated])
      .when({ ...revokeUserKey, actor: 'u-2', actorUserId: 'u-2', actorRole: 'OWNER' })
      .thenError(NotFoundError);
    given(apiKeyDecider, [userKeyCreated])
      .when({ ...revokeUserKey, actor: 'k-9', actorUserId: null })
      .thenError(NotFoundError);
  });

  it('lets ADMIN and OWNER revoke a service key, and nobody below', () => {
    const when = given(apiKeyDecider, [serviceKeyCreated]).when;
    const revoke = {
      type: 'RevokeApiKey',
      now,
      actor: 'u-3',
      keyId: 'k-2',
      actorUserId: 'u-3',
      actorRole: null,
    } as const;
    when({ ...revoke, actorRole: 'ADMIN' }).thenEvents([
      { type: 'ApiKeyRevoked', data: { revokedBy: 'u-3', at: now } },
    ]);
    when({ ...revoke, actorRole: 'OWNER' }).thenEvents([
      { type: 'ApiKeyRevoked', data: { revokedBy: 'u-3', at: now } },
    ]);
    when({ ...revoke, actorRole: 'READ_WRITE' }).thenError(ForbiddenError, /ADMIN or OWNER/);
    when({ ...revoke }).thenError(ForbiddenError);
  });

  it('answers NotFound for an absent or already revoked key', () => {
    given(apiKeyDecider).when(revokeUserKey).thenError(NotFoundError);
    given(apiKeyDecider, [userKeyCreated, revoked]).when(revokeUserKey).thenError(NotFoundError);
  });
});
