import { describe, expect, it } from 'vitest';
import { ForbiddenError } from '#core';
import { fold, type Decider } from './decider.ts';
import { roleAtLeast, roles, type Role } from './roles.ts';
import { apiKeyDecider, type ApiKeyCommand, type ApiKeyEvent } from './api-key/api-key.ts';
import { userDecider, type UserCommand, type UserEvent } from './user/user.ts';

// The role ceiling, as a table over every caller role, every role granted (or touched) and every
// command that grants one: nobody grants, or acts on, a role above their own.
const now = '2026-01-01T00:00:00.000Z';
const hash = 'b'.repeat(64);

function outcome<C, E, S>(decider: Decider<C, E, S>, past: E[], command: C): 'ok' | 'forbidden' | Error {
  try {
    decider.decide(command, fold(decider, past));
    return 'ok';
  } catch (error) {
    if (error instanceof ForbiddenError) return 'forbidden';
    return error as Error;
  }
}

const registered: UserEvent = {
  type: 'UserRegistered',
  data: { userId: 'u-1', email: 'a@example.com', createdAt: now },
};
const member = (role: Role): UserEvent => ({ type: 'UserAddedToAccount', data: { accountId: 'acc-1', role, at: now } });
const serviceKey = (role: Role): ApiKeyEvent => ({
  type: 'ApiKeyCreated',
  data: {
    keyId: 'k-1',
    name: 'ci',
    type: 'service',
    userId: null,
    accountId: 'acc-1',
    role,
    hash,
    last4: 'abcd',
    createdBy: 'u-0',
    createdAt: now,
  },
});

const cases: {
  route: string;
  allowed: (caller: Role, role: Role) => boolean;
  run: (caller: Role, role: Role) => 'ok' | 'forbidden' | Error;
}[] = [
  {
    route: 'CreateApiKey (service key)',
    allowed: (caller, role) => roleAtLeast(caller, 'ADMIN') && roleAtLeast(caller, role),
    run: (caller, role) =>
      outcome(apiKeyDecider, [], {
        type: 'CreateApiKey',
        now,
        actor: 'u-0',
        keyId: 'k-1',
        name: 'ci',
        keyType: 'service',
        userId: null,
        accountId: 'acc-1',
        role,
        hash,
        last4: 'abcd',
        actorRole: caller,
        accountPlan: 'enterprise',
      } satisfies ApiKeyCommand),
  },
  {
    route: 'RevokeApiKey (service key of that role)',
    allowed: (caller, role) => roleAtLeast(caller, 'ADMIN') && roleAtLeast(caller, role),
    run: (caller, role) =>
      outcome(apiKeyDecider, [serviceKey(role)], {
        type: 'RevokeApiKey',
        now,
        actor: 'u-0',
        keyId: 'k-1',
        actorUserId: 'u-0',
        actorRole: caller,
      } satisfies ApiKeyCommand),
  },
  {
    route: 'AddUserToAccount',
    allowed: (caller, role) => roleAtLeast(caller, 'ADMIN') && roleAtLeast(caller, role),
    run: (caller, role) =>
      outcome(userDecider, [registered], {
        type: 'AddUserToAccount',
        now,
        actor: 'u-0',
        userId: 'u-1',
        accountId: 'acc-1',
        role,
        actorRole: caller,
      } satisfies UserCommand),
  },
  {
    route: 'ChangeUserRole (promote a READ_ONLY member)',
    allowed: (caller, role) => roleAtLeast(caller, 'ADMIN') && roleAtLeast(caller, role),
    run: (caller, role) =>
      outcome(userDecider, [registered, member('READ_ONLY')], {
        type: 'ChangeUserRole',
        now,
        actor: 'u-0',
        userId: 'u-1',
        accountId: 'acc-1',
        role,
        actorRole: caller,
        allowOwner: true,
      } satisfies UserCommand),
  },
  {
    route: 'ChangeUserRole (demote a member of that role to READ_ONLY)',
    allowed: (caller, role) => roleAtLeast(caller, 'ADMIN') && roleAtLeast(caller, role),
    run: (caller, role) =>
      outcome(userDecider, [registered, member(role)], {
        type: 'ChangeUserRole',
        now,
        actor: 'u-0',
        userId: 'u-1',
        accountId: 'acc-1',
        role: 'READ_ONLY',
        actorRole: caller,
        allowOwner: true,
      } satisfies UserCommand),
  },
  {
    route: 'RemoveUserFromAccount (a member of that role)',
    allowed: (caller, role) => roleAtLeast(caller, 'ADMIN') && roleAtLeast(caller, role),
    run: (caller, role) =>
      outcome(userDecider, [registered, member(role)], {
        type: 'RemoveUserFromAccount',
        now,
        actor: 'u-0',
        userId: 'u-1',
        accountId: 'acc-1',
        actorRole: caller,
        allowOwner: true,
      } satisfies UserCommand),
  },
];

const table = cases.flatMap((c) =>
  roles.flatMap((caller) => roles.map((role) => ({ ...c, caller, role, expected: c.allowed(caller, role) }))),
);

describe('role ceiling in the deciders', () => {
  it('covers every command × caller role × role', () => {
    expect(table).toHaveLength(cases.length * roles.length * roles.length);
  });

  it.each(table.map((row) => [row.route, row.caller, row.role, row.expected ? 'ok' : 'forbidden', row] as const))(
    '%s: a %s caller, role %s → %s',
    (_route, caller, role, expected, row) => {
      expect(row.run(caller, role)).toBe(expected);
    },
  );
});
