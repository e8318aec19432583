import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import { given } from '../testing.ts';
import { roleAtLeast, roles } from '../roles.ts';
import { userDecider, type UserEvent } from './user.ts';
import { userEmailDecider } from './user-email.ts';

const now = '2025-01-02T03:04:05.000Z';
const base = { now, actor: 'system' };
const registered: UserEvent = {
  type: 'UserRegistered',
  data: { userId: 'u-1', email: 'ann@example.com', createdAt: now },
};
const member = (role: (typeof roles)[number], accountId = 'acc-1'): UserEvent => ({
  type: 'UserAddedToAccount',
  data: { accountId, role, at: now },
});

describe('user', () => {
  it('registers a user with a normalized email', () => {
    const state = given(userDecider)
      .when({ ...base, type: 'RegisterUser', userId: 'u-1', email: '  Ann@Example.COM ' })
      .thenEvents([registered]);
    expect(state).toEqual({
      status: 'registered',
      userId: 'u-1',
      email: 'ann@example.com',
      createdAt: now,
      memberships: {},
    });
  });

  it('refuses to register a user twice', () => {
    given(userDecider, [registered])
      .when({ ...base, type: 'RegisterUser', userId: 'u-1', email: 'b@example.com' })
      .thenError(ConflictError);
  });

  it('refuses a malformed email, naming the field', () => {
    given(userDecider)
      .when({ ...base, type: 'RegisterUser', userId: 'u-1', email: 'not-an-email' })
      .thenError(ValidationError, /^email/);
  });

  it('adds a user to an account with a role', () => {
    const state = given(userDecider, [registered])
      .when({ ...base, type: 'AddUserToAccount', actorRole: 'OWNER', userId: 'u-1', accountId: 'acc-1', role: 'ADMIN' })
      .thenEvents([member('ADMIN')]);
    expect(state.status === 'registered' && state.memberships).toEqual({ 'acc-1': 'ADMIN' });
  });

  it('refuses to add a member twice', () => {
    given(userDecider, [registered, member('READ_ONLY')])
      .when({ ...base, type: 'AddUserToAccount', actorRole: 'OWNER', userId: 'u-1', accountId: 'acc-1', role: 'ADMIN' })
      .thenError(ConflictError, /already a member/);
  });

  it('refuses to add an unknown user, or with an unknown role', () => {
    given(userDecider)
      .when({ ...base, type: 'AddUserToAccount', actorRole: 'OWNER', userId: 'u-9', accountId: 'acc-1', role: 'ADMIN' })
      .thenError(NotFoundError);
    given(userDecider, [registered])
      .when({
        ...base,
        type: 'AddUserToAccount',
        actorRole: 'OWNER',
        userId: 'u-1',
        accountId: 'acc-1',
        role: 'GOD' as 'ADMIN',
      })
      .thenError(ValidationError, /^role/);
  });

  it('changes a role', () => {
    const state = given(userDecider, [registered, member('READ_ONLY')])
      .when({
        ...base,
        type: 'ChangeUserRole',
        actorRole: 'OWNER',
        userId: 'u-1',
        accountId: 'acc-1',
        role: 'READ_WRITE',
      })
      .thenEvents([{ type: 'UserRoleChanged', data: { accountId: 'acc-1', role: 'READ_WRITE', at: now } }]);
    expect(state.status === 'registered' && state.memberships['acc-1']).toBe('READ_WRITE');
  });

  it('refuses to demote an OWNER unless allowed, and to change the role of a non-member', () => {
    const when = given(userDecider, [registered, member('OWNER')]).when;
    when({
      ...base,
      type: 'ChangeUserRole',
      actorRole: 'OWNER',
      userId: 'u-1',
      accountId: 'acc-1',
      role: 'ADMIN',
    }).thenError(ConflictError, /OWNER/);
    when({
      ...base,
      type: 'ChangeUserRole',
      actorRole: 'OWNER',
      userId: 'u-1',
      accountId: 'acc-1',
      role: 'ADMIN',
      allowOwner: true,
    }).thenEvents([{ type: 'UserRoleChanged', data: { accountId: 'acc-1', role: 'ADMIN', at: now } }]);
    when({
      ...base,
      type: 'ChangeUserRole',
      actorRole: 'OWNER',
      userId: 'u-1',
      accountId: 'acc-2',
      role: 'ADMIN',
    }).thenError(NotFoundError);
  });

  it('removes a member, and only that membership', () => {
    const state = given(userDecider, [registered, member('ADMIN'), member('READ_ONLY', 'acc-2')])
      .when({ ...base, type: 'RemoveUserFromAccount', actorRole: 'OWNER', userId: 'u-1', accountId: 'acc-1' })
      .thenEvents([{ type: 'UserRemovedFromAccount', data: { accountId: 'acc-1', at: now } }]);
    expect(state.status === 'registered' && state.memberships).toEqual({ 'acc-2': 'READ_ONLY' });
  });

  it('refuses to remove a non-member', () => {
    given(userDecider, [registered])
      .when({ ...base, type: 'RemoveUserFromAccount', actorRole: 'OWNER', userId: 'u-1', accountId: 'acc-1' })
      .thenError(NotFoundError, /not a member/);
  });

  it('refuses to remove an OWNER membership unless the command allows it', () => {
    const when = given(userDecider, [registered, member('OWNER')]).when;
    when({ ...base, type: 'RemoveUserFromAccount', actorRole: 'OWNER', userId: 'u-1', accountId: 'acc-1' }).thenError(
      ConflictError,
      /OWNER/,
    );
    when({
      ...base,
      type: 'RemoveUserFromAccount',
      actorRole: 'OWNER',
      userId: 'u-1',
      accountId: 'acc-1',
      allowOwner: true,
    }).thenEvents([{ type: 'UserRemovedFromAccount', data: { accountId: 'acc-1', at: now } }]);
  });

  it('lets a removed user be added again', () => {
    const removed: UserEvent = { type: 'UserRemovedFromAccount', data: { accountId: 'acc-1', at: now } };
    given(userDecider, [registered, member('ADMIN'), removed])
      .when({
        ...base,
        type: 'AddUserToAccount',
        actorRole: 'OWNER',
        userId: 'u-1',
        accountId: 'acc-1',
        role: 'READ_ONLY',
      })
      .thenEvents([member('READ_ONLY')]);
  });
});

describe('user email reservation', () => {
  it('reserves a normalized email for a user', () => {
    const state = given(userEmailDecider)
      .when({ ...base, type: 'ReserveEmail', email: 'Ann@Example.com', userId: 'u-1' })
      .thenEvents([{ type: 'EmailReserved', data: { email: 'ann@example.com', userId: 'u-1' } }]);
    expect(state).toEqual({ reservedBy: 'u-1' });
  });

  it('refuses a second reservation of the same email', () => {
    given(userEmailDecider, [{ type: 'EmailReserved', data: { email: 'ann@example.com', userId: 'u-1' } }])
      .when({ ...base, type: 'ReserveEmail', email: 'ann@example.com', userId: 'u-2' })
      .thenError(ConflictError, /already registered/);
  });
});

describe('roles', () => {
  it('orders roles from READ_ONLY to OWNER', () => {
    expect(roles).toEqual(['READ_ONLY', 'READ_WRITE', 'ADMIN', 'OWNER']);
    expect(roleAtLeast('OWNER', 'ADMIN')).toBe(true);
    expect(roleAtLeast('ADMIN', 'ADMIN')).toBe(true);
    expect(roleAtLeast('READ_WRITE', 'ADMIN')).toBe(false);
    expect(roleAtLeast('READ_ONLY', 'READ_WRITE')).toBe(false);
  });
});
