import { z } from 'zod';
import { ConflictError, NotFoundError } from '#core';
import type { CommandBase, Decider } from '../decider.ts';
import { defineEvents, type EventsOf } from '../events.ts';
import { assertAdmin, assertWithinCeiling, roleSchema, type Role } from '../roles.ts';
import { emailAddressSchema, idSchema, parseInput, timestampSchema } from '../validation.ts';

/** Emails compare case-insensitively; the reservation stream is named after this form. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export const emailSchema = emailAddressSchema();

export const userEvents = defineEvents({
  UserRegistered: z.object({ userId: idSchema, email: emailSchema, createdAt: timestampSchema }),
  UserAddedToAccount: z.object({ accountId: idSchema, role: roleSchema, at: timestampSchema }),
  UserRoleChanged: z.object({ accountId: idSchema, role: roleSchema, at: timestampSchema }),
  UserRemovedFromAccount: z.object({ accountId: idSchema, at: timestampSchema }),
});
export type UserEvent = EventsOf<typeof userEvents.data>;
export const userEventSchema = userEvents.schema;
export const parseUserEvent = userEvents.parse;

export type UserState =
  | { status: 'absent' }
  | {
      status: 'registered';
      userId: string;
      email: string;
      createdAt: string;
      memberships: Readonly<Record<string, Role>>;
    };

export interface RegisterUser extends CommandBase {
  type: 'RegisterUser';
  userId: string;
  email: string;
}

export interface AddUserToAccount extends CommandBase {
  type: 'AddUserToAccount';
  userId: string;
  accountId: string;
  role: Role;
  /** The caller's role in the account: the role granted may not be above it. */
  actorRole: Role;
}

/**
 * The user aggregate cannot see the account's other owners, so it refuses to touch an OWNER
 * membership unless the application has checked another owner remains and says `allowOwner`.
 */
export interface ChangeUserRole extends CommandBase {
  type: 'ChangeUserRole';
  userId: string;
  accountId: string;
  role: Role;
  /** The caller's role in the account: neither the new nor the current role may be above it. */
  actorRole: Role;
  allowOwner?: boolean;
}

export interface RemoveUserFromAccount extends CommandBase {
  type: 'RemoveUserFromAccount';
  userId: string;
  accountId: string;
  /** The caller's role in the account: a member above it cannot be removed. */
  actorRole: Role;
  allowOwner?: boolean;
}

export type UserCommand = RegisterUser | AddUserToAccount | ChangeUserRole | RemoveUserFromAccount;

export function decideUser(command: UserCommand, state: UserState): UserEvent[] {
  if (command.type === 'RegisterUser') {
    if (state.status !== 'absent') throw new ConflictError(`user ${command.userId} already exists`);
    const input = parseInput(z.object({ userId: idSchema, email: emailSchema }), {
      userId: command.userId,
      email: normalizeEmail(command.email),
    });
    return [{ type: 'UserRegistered', data: { ...input, createdAt: command.now } }];
  }
  if (state.status !== 'registered') throw new NotFoundError(`user ${command.userId} not found`);
  const current = Object.hasOwn(state.memberships, command.accountId)
    ? state.memberships[command.accountId]
    : undefined;
  switch (command.type) {
    case 'AddUserToAccount': {
      const role = parseInput(roleSchema, command.role, 'role');
      assertAdmin(command.actorRole, 'adding a member');
      assertWithinCeiling(command.actorRole, role, 'role');
      if (current !== undefined)
        throw new ConflictError(`user ${command.userId} is already a member of account ${command.accountId}`);
      return [{ type: 'UserAddedToAccount', data: { accountId: command.accountId, role, at: command.now } }];
    }
    case 'ChangeUserRole': {
      const role = parseInput(roleSchema, command.role, 'role');
      if (current === undefined) throw notMember(command);
      assertAdmin(command.actorRole, 'changing a role');
      assertWithinCeiling(command.actorRole, role, 'role');
      assertWithinCeiling(command.actorRole, current, 'changing the role of this member');
      if (current === 'OWNER' && role !== 'OWNER' && command.allowOwner !== true) throw ownerGuard(command);
      return [{ type: 'UserRoleChanged', data: { accountId: command.accountId, role, at: command.now } }];
    }
    case 'RemoveUserFromAccount': {
      if (current === undefined) throw notMember(command);
      assertAdmin(command.actorRole, 'removing a member');
      assertWithinCeiling(command.actorRole, current, 'removing this member');
      if (current === 'OWNER' && command.allowOwner !== true) throw ownerGuard(command);
      return [{ type: 'UserRemovedFromAccount', data: { accountId: command.accountId, at: command.now } }];
    }
  }
}

function notMember(command: { userId: string; accountId: string }): NotFoundError {
  return new NotFoundError(`user ${command.userId} is not a member of account ${command.accountId}`);
}

function ownerGuard(command: { userId: string; accountId: string }): ConflictError {
  return new ConflictError(
    `user ${command.userId} is an OWNER of account ${command.accountId}; another owner must remain`,
  );
}

export function evolveUser(state: UserState, event: UserEvent): UserState {
  if (event.type === 'UserRegistered') return { status: 'registered', ...event.data, memberships: {} };
  if (state.status !== 'registered') return state;
  switch (event.type) {
    case 'UserAddedToAccount':
    case 'UserRoleChanged':
      return { ...state, memberships: { ...state.memberships, [event.data.accountId]: event.data.role } };
    case 'UserRemovedFromAccount': {
      const { [event.data.accountId]: _removed, ...memberships } = state.memberships;
      return { ...state, memberships };
    }
  }
}

export const userDecider: Decider<UserCommand, UserEvent, UserState> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolveUser,
  decide: decideUser,
};
