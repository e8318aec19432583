import { z } from 'zod';
import { ConflictError, NotFoundError, PlanRequiredError, ValidationError } from '#core';
import type { CommandBase, Decider } from '../decider.ts';
import { defineEvents, type EventsOf } from '../events.ts';
import { assertAdmin, assertWithinCeiling, roleSchema, type Role } from '../roles.ts';
import type { Plan } from '../account/account.ts';
import { idSchema, nameSchema, parseInput, timestampSchema } from '../validation.ts';

export const apiKeyTypes = ['user', 'service'] as const;
export type ApiKeyType = (typeof apiKeyTypes)[number];

const apiKeyFields = {
  keyId: idSchema,
  name: nameSchema,
  type: z.enum(apiKeyTypes),
  userId: idSchema.nullable(),
  accountId: idSchema.nullable(),
  role: roleSchema.nullable(),
  /** sha256 of the secret, hex; the secret itself is shown once and never stored. */
  hash: z.string().regex(/^[0-9a-f]{64}$/, 'must be a lower-case sha256 hex digest'),
  last4: z.string().length(4),
};

export const apiKeyEvents = defineEvents({
  ApiKeyCreated: z.object({ ...apiKeyFields, createdBy: idSchema, createdAt: timestampSchema }),
  ApiKeyRevoked: z.object({ revokedBy: idSchema, at: timestampSchema }),
});
export type ApiKeyEvent = EventsOf<typeof apiKeyEvents.data>;
export const apiKeyEventSchema = apiKeyEvents.schema;
export const parseApiKeyEvent = apiKeyEvents.parse;

export type ApiKey = z.output<(typeof apiKeyEvents.data)['ApiKeyCreated']>;

export type ApiKeyState =
  | { status: 'absent' }
  | ({ status: 'active' } & ApiKey)
  | ({ status: 'revoked'; revokedBy: string; revokedAt: string } & ApiKey);

export interface CreateApiKey extends CommandBase {
  type: 'CreateApiKey';
  keyId: string;
  name: string;
  keyType: ApiKeyType;
  /** User keys: the owning user. Service keys: null. */
  userId: string | null;
  /** Service keys: the account the key belongs to. User keys: null (they follow the user). */
  accountId: string | null;
  /** Service keys: the role set on the key. User keys: null (they inherit the user's role). */
  role: Role | null;
  hash: string;
  last4: string;
  /** The creator's role in the account; a service key's role may not be above it. */
  actorRole: Role | null;
  /** Service keys: the account's plan, looked up by the app. */
  accountPlan?: Plan | null;
}

export interface RevokeApiKey extends CommandBase {
  type: 'RevokeApiKey';
  keyId: string;
  /** The user behind the request; null when the request is made with a service key. */
  actorUserId: string | null;
  /** The actor's role in the key's account; needed to revoke a service key (at most the actor's role). */
  actorRole: Role | null;
}

export type ApiKeyCommand = CreateApiKey | RevokeApiKey;

export function decideApiKey(command: ApiKeyCommand, state: ApiKeyState): ApiKeyEvent[] {
  switch (command.type) {
    case 'CreateApiKey':
      return decideCreate(command, state);
    case 'RevokeApiKey': {
      if (state.status !== 'active') throw new NotFoundError(`API key ${command.keyId} not found`);
      // A user key is private to its user: to anyone else it does not exist (same answer as an unknown id).
      if (state.type === 'user' && (command.actorUserId === null || command.actorUserId !== state.userId)) {
        throw new NotFoundError(`API key ${command.keyId} not found`);
      }
      if (state.type === 'service') {
        assertAdmin(command.actorRole, 'revoking a service API key');
        if (state.role !== null) assertWithinCeiling(command.actorRole, state.role, 'revoking a service API key');
      }
      return [{ type: 'ApiKeyRevoked', data: { revokedBy: command.actor, at: command.now } }];
    }
  }
}

function decideCreate(command: CreateApiKey, state: ApiKeyState): ApiKeyEvent[] {
  if (state.status !== 'absent') throw new ConflictError(`API key ${command.keyId} already exists`);
  const key = parseInput(z.object(apiKeyFields), { ...command, type: command.keyType });
  if (key.type === 'user') {
    if (key.userId === null) throw new ValidationError('userId: a user API key needs the owning user');
    if (key.role !== null)
      throw new ValidationError('role: a user API key inherits the role of its user; do not set one');
    if (key.accountId !== null) throw new ValidationError('accountId: a user API key is not tied to one account');
  } else {
    if (key.accountId === null) throw new ValidationError('accountId: a service API key needs an account');
    if (key.role === null) throw new ValidationError('role: a service API key needs a role');
    if (key.userId !== null) throw new ValidationError('userId: a service API key is not tied to a user');
    assertAdmin(command.actorRole, 'creating a service API key');
    assertWithinCeiling(command.actorRole, key.role, 'role');
    if (command.accountPlan !== 'enterprise') {
      throw new PlanRequiredError('service API keys are available on the enterprise plan only');
    }
  }
  return [{ type: 'ApiKeyCreated', data: { ...key, createdBy: command.actor, createdAt: command.now } }];
}

export function evolveApiKey(state: ApiKeyState, event: ApiKeyEvent): ApiKeyState {
  switch (event.type) {
    case 'ApiKeyCreated':
      return { status: 'active', ...event.data };
    case 'ApiKeyRevoked': {
      if (state.status !== 'active') return state;
      return { ...state, status: 'revoked', revokedBy: event.data.revokedBy, revokedAt: event.data.at };
    }
  }
}

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyEvent, ApiKeyState> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolveApiKey,
  decide: decideApiKey,
};
