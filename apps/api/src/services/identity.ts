import { randomUUID } from 'node:crypto';
import {
  ConcurrencyError,
  ConflictError,
  ForbiddenError,
  generateApiKey,
  NotFoundError,
  sha256Hex,
  ValidationError,
} from '#core';
import {
  accountDecider,
  assertAdmin,
  assertWithinCeiling,
  apiKeyDecider,
  normalizeEmail,
  roleAtLeast,
  streamNames,
  userDecider,
  userEmailDecider,
  type AccountCommand,
  type ApiKeyCommand,
  type Role,
  type UserCommand,
  type UserEmailCommand,
} from '#domain';
import type { ReadModels } from '#readmodels';
import type { Access } from '../access.ts';
import type { CommandRunner } from '../commands.ts';
import { newId } from '../request-context.ts';
import type { RuntimeCatalogue } from '../runtimes/catalogue.ts';

export interface IssuedKey {
  id: string;
  name: string;
  type: 'user' | 'service';
  role: Role | null;
  key: string;
}

/** Accounts, users, memberships and API keys: the flows that span several aggregates. */
export class IdentityService {
  constructor(
    private readonly commands: CommandRunner,
    private readonly readModels: ReadModels,
    private readonly runtimes: RuntimeCatalogue,
  ) {}

  async createAccount(input: {
    name: string;
    plan: 'hobby' | 'team' | 'enterprise';
    ownerEmail: string;
    runtimeId?: string | undefined;
  }) {
    const runtimeId = input.runtimeId ?? this.runtimes.current.name;
    this.runtimes.assertUsable(runtimeId);
    const accountId = newId();
    const meta = { accountId, actor: 'platform-admin' };
    const account = await this.commands.run(
      accountDecider,
      streamNames.account(accountId),
      (): AccountCommand => ({
        type: 'CreateAccount',
        accountId,
        name: input.name,
        plan: input.plan,
        runtimeId,
        now: this.commands.now(),
        actor: meta.actor,
      }),
      meta,
    );
    const { userId, email, created } = await this.ensureUser(input.ownerEmail, meta.actor, accountId);
    // The platform admin stands above every account role, so it may grant OWNER.
    await this.addMember(userId, accountId, 'OWNER', meta.actor, 'OWNER');
    const apiKey = await this.issueUserKey(
      userId,
      created ? 'default' : `owner of ${input.name}`,
      meta.actor,
      accountId,
      'OWNER',
    );
    return { account: account.state, owner: { id: userId, email }, apiKey };
  }

  /** Finds the user with this email or registers one; the email reservation stream makes it unique. */
  async ensureUser(
    rawEmail: string,
    actor: string,
    accountId: string,
  ): Promise<{ userId: string; email: string; created: boolean }> {
    const email = normalizeEmail(rawEmail);
    // Minted before the look-up, so a retried request derives the same ids in the same order.
    const userId = newId();
    const reservation = await this.commands.load(userEmailDecider, streamNames.userEmail(email));
    const reservedBy = reservation.state.reservedBy;
    // Reserved under this very id: an earlier run of this idempotent request created the user; finish it.
    if (reservedBy && reservedBy !== userId) return { userId: reservedBy, email, created: false };
    if (!reservedBy) {
      try {
        await this.commands.run(
          userEmailDecider,
          streamNames.userEmail(email),
          (): UserEmailCommand => ({ type: 'ReserveEmail', email, userId, now: this.commands.now(), actor }),
          { accountId, actor },
        );
      } catch (error) {
        // Another request registered this email a moment ago: use that user.
        if (error instanceof ConcurrencyError || error instanceof ConflictError) {
          const winner = await this.commands.load(userEmailDecider, streamNames.userEmail(email));
          if (winner.state.reservedBy) return { userId: winner.state.reservedBy, email, created: false };
        }
        throw error;
      }
    }
    return this.registerUser(email, userId, actor, accountId);
  }

  private async registerUser(
    email: string,
    userId: string,
    actor: string,
    accountId: string,
  ): Promise<{ userId: string; email: string; created: boolean }> {
    await this.commands.run(
      userDecider,
      streamNames.user(userId),
      (): UserCommand => ({ type: 'RegisterUser', userId, email, now: this.commands.now(), actor }),
      {
        accountId,
        actor,
      },
    );
    return { userId, email, created: true };
  }

  async addMember(userId: string, accountId: string, role: Role, actor: string, actorRole: Role): Promise<void> {
    await this.commands.run(
      userDecider,
      streamNames.user(userId),
      (): UserCommand => ({
        type: 'AddUserToAccount',
        userId,
        accountId,
        role,
        actorRole,
        now: this.commands.now(),
        actor,
      }),
      { accountId, actor },
    );
  }

  /** POST /v1/users: a new user gets a first key; an existing user only gains the membership. */
  async inviteUser(access: Access, email: string, role: Role) {
    // The ceiling is the decider's; checking it first as well keeps a refused invite from registering the email.
    assertAdmin(access.role, 'adding a member');
    assertWithinCeiling(access.role, role, 'role');
    const user = await this.ensureUser(email, access.actor, access.accountId);
    await this.addMember(user.userId, access.accountId, role, access.actor, access.role);
    // A key for an existing user would let this account's admin act in the user's other accounts.
    const apiKey = user.created
      ? await this.issueUserKey(user.userId, 'default', access.actor, access.accountId, access.role)
      : null;
    return { user: { id: user.userId, email: user.email, role }, apiKey };
  }

  async removeUser(access: Access, userId: string): Promise<void> {
    const user = await this.readModels.user(userId);
    const role = user?.memberships[access.accountId];
    if (!user || role === undefined) throw new NotFoundError(`User ${userId} is not a member of this account`);
    const allowOwner = await this.anotherOwnerRemains(access, role, 'removing this one');
    await this.commands.run(
      userDecider,
      streamNames.user(userId),
      (): UserCommand => ({
        type: 'RemoveUserFromAccount',
        userId,
        accountId: access.accountId,
        actorRole: access.role,
        allowOwner,
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
  }

  /** PATCH /v1/users/{id}: a new role for a member; the decider applies the role ceiling. */
  async changeRole(access: Access, userId: string, newRole: Role) {
    const user = await this.readModels.user(userId);
    const role = user?.memberships[access.accountId];
    if (!user || role === undefined) throw new NotFoundError(`User ${userId} is not a member of this account`);
    const allowOwner = newRole !== 'OWNER' && (await this.anotherOwnerRemains(access, role, 'demoting this one'));
    await this.commands.run(
      userDecider,
      streamNames.user(userId),
      (): UserCommand => ({
        type: 'ChangeUserRole',
        userId,
        accountId: access.accountId,
        role: newRole,
        actorRole: access.role,
        allowOwner,
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
    return { id: userId, email: user.email, role: newRole };
  }

  /**
   * Whether the command may touch an OWNER membership: only when the caller is an OWNER (the
   * decider refuses anyone else) and another OWNER remains; 409 when this is the last one.
   */
  private async anotherOwnerRemains(access: Access, role: Role, action: string): Promise<boolean> {
    if (role !== 'OWNER' || access.role !== 'OWNER') return false;
    const owners = (await this.readModels.members(access.accountId)).filter(
      (member) => member.memberships[access.accountId] === 'OWNER',
    );
    if (owners.length < 2) throw new ConflictError(`An account needs at least one OWNER; add another before ${action}`);
    return true;
  }

  async issueUserKey(
    userId: string,
    name: string,
    actor: string,
    accountId: string | null,
    actorRole: Role,
  ): Promise<IssuedKey> {
    return this.issueKey({
      keyType: 'user',
      userId,
      accountId: null,
      role: null,
      name,
      actor,
      metaAccountId: accountId,
      actorRole,
    });
  }

  async createKey(
    access: Access,
    input: { name: string; type: 'user' | 'service'; role?: Role | undefined },
  ): Promise<IssuedKey> {
    if (input.type === 'user') {
      if (!access.userId) throw new ForbiddenError('A service key cannot create user keys; use a user key');
      if (input.role !== undefined)
        throw new ValidationError("role: applies to service keys only; a user key carries its user's roles");
      return this.issueUserKey(access.userId, input.name, access.actor, access.accountId, access.role);
    }
    if (!input.role) throw new ValidationError('role: required for a service key');
    return this.issueKey({
      keyType: 'service',
      userId: null,
      accountId: access.accountId,
      role: input.role,
      name: input.name,
      actor: access.actor,
      metaAccountId: access.accountId,
      actorRole: access.role,
      accountPlan: access.account.plan,
    });
  }

  async revokeKey(access: Access, keyId: string): Promise<void> {
    const key = await this.readModels.apiKey(keyId);
    const visible =
      key && key.status === 'active' && (key.type === 'service' ? key.accountId === access.accountId : true);
    // Another user's key, in this tenant or any other, answers exactly like an unknown id.
    const own = key?.type === 'user' && access.userId !== null && key.userId === access.userId;
    if (!key || !visible || (key.type === 'user' && !own)) throw new NotFoundError(`API key ${keyId} not found`);
    await this.commands.run(
      apiKeyDecider,
      streamNames.apiKey(keyId),
      (): ApiKeyCommand => ({
        type: 'RevokeApiKey',
        keyId,
        actorUserId: access.userId,
        actorRole: access.role,
        now: this.commands.now(),
        actor: access.actor,
      }),
      { accountId: access.accountId, actor: access.actor },
    );
  }

  async listKeys(access: Access) {
    const own = access.userId ? await this.readModels.userApiKeys(access.userId) : [];
    const service =
      roleAtLeast(access.role, 'ADMIN') || access.principal.kind === 'service'
        ? await this.readModels.serviceApiKeys(access.accountId)
        : [];
    return [...own, ...service].filter((key) => key.status === 'active');
  }

  private async issueKey(spec: {
    keyType: 'user' | 'service';
    userId: string | null;
    accountId: string | null;
    role: Role | null;
    name: string;
    actor: string;
    metaAccountId: string | null;
    actorRole: Role;
    accountPlan?: 'hobby' | 'team' | 'enterprise';
    /** A key whose first issue was committed by a crashed run: mint a fresh one, since its secret is gone. */
    fresh?: boolean;
  }): Promise<IssuedKey> {
    const keyId = spec.fresh ? randomUUID() : newId();
    const secret = generateApiKey();
    const outcome = await this.commands.run(
      apiKeyDecider,
      streamNames.apiKey(keyId),
      (): ApiKeyCommand => ({
        type: 'CreateApiKey',
        keyId,
        name: spec.name,
        keyType: spec.keyType,
        userId: spec.userId,
        accountId: spec.accountId,
        role: spec.role,
        hash: sha256Hex(secret),
        last4: secret.slice(-4),
        actorRole: spec.actorRole,
        accountPlan: spec.accountPlan ?? null,
        now: this.commands.now(),
        actor: spec.actor,
      }),
      { accountId: spec.metaAccountId, actor: spec.actor },
    );
    // Only a hash of the first secret was kept; the retry gets a working key instead.
    if (outcome.replayed) return this.issueKey({ ...spec, fresh: true });
    return { id: keyId, name: spec.name, type: spec.keyType, role: spec.role, key: secret };
  }
}
