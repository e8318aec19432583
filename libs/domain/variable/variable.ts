import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import type { CommandBase, Decider } from '../decider.ts';
import { defineEvents, type EventsOf } from '../events.ts';
import { idSchema, parseInput, timestampSchema, utf8Bytes } from '../validation.ts';

export const VARIABLE_KEY_MAX_LENGTH = 128;
export const VARIABLE_VALUE_MAX_BYTES = 10_000;
/** Checked by the application against the read model; exported so both sides share the number. */
export const MAX_VARIABLES_PER_ACCOUNT = 1000;

// Keys become identifiers in scripts and templates ({{KEY}}), hence identifier syntax.
export const variableKeySchema = z
  .string()
  .min(1)
  .max(VARIABLE_KEY_MAX_LENGTH)
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*$/,
    'must start with a letter or underscore and contain only letters, digits and underscores',
  );

const valueTooLong = `must be at most ${VARIABLE_VALUE_MAX_BYTES} bytes (UTF-8)`;
// The character limit is what OpenAPI can state (a character is at least a byte); the byte rule is the real one.
export const variableValueSchema = z
  .string()
  .max(VARIABLE_VALUE_MAX_BYTES, valueTooLong)
  .refine((value) => utf8Bytes(value) <= VARIABLE_VALUE_MAX_BYTES, { message: valueTooLong });

/**
 * Checks a plaintext value against the size limit. decide cannot measure a value that arrives
 * encrypted, so the application calls this on the plaintext before encrypting a secret.
 */
export function assertVariableValue(plaintext: string): void {
  parseInput(variableValueSchema, plaintext, 'value');
}

/** Body of POST /v1/variables. The size limit applies here, to the plaintext, before encryption. */
export const createVariableInputSchema = z.object({
  key: variableKeySchema,
  value: variableValueSchema,
  locked: z.boolean().default(false),
  secret: z.boolean().default(false),
});

/**
 * Body of PUT /v1/variables/{key}. `secret` has no default on purpose: left out, a secret variable
 * stays secret; `key`, if sent, must equal the path key (decide checks it as `bodyKey`).
 */
export const updateVariableInputSchema = z.object({
  key: z.string().optional(),
  value: variableValueSchema,
  locked: z.boolean().optional(),
  secret: z.boolean().optional(),
});

export const variableEvents = defineEvents({
  VariableCreated: z.object({
    accountId: idSchema,
    key: variableKeySchema,
    value: z.string(),
    encrypted: z.boolean(),
    locked: z.boolean(),
    secret: z.boolean(),
    createdBy: idSchema,
    at: timestampSchema,
  }),
  VariableUpdated: z.object({
    value: z.string(),
    encrypted: z.boolean(),
    locked: z.boolean(),
    secret: z.boolean(),
    updatedBy: idSchema,
    at: timestampSchema,
  }),
  VariableDeleted: z.object({ deletedBy: idSchema, at: timestampSchema }),
});
export type VariableEvent = EventsOf<typeof variableEvents.data>;
export const variableEventSchema = variableEvents.schema;
export const parseVariableEvent = variableEvents.parse;

export interface Variable {
  accountId: string;
  key: string;
  /** Ciphertext when encrypted; only the application can decrypt it. */
  value: string;
  encrypted: boolean;
  locked: boolean;
  secret: boolean;
  createdBy: string;
  createdAt: string;
  updatedBy: string;
  updatedAt: string;
}

export type VariableState =
  | { status: 'absent' }
  | ({ status: 'active' } & Variable)
  | { status: 'deleted'; accountId: string; key: string; deletedBy: string; deletedAt: string };

interface VariableWrite {
  accountId: string;
  key: string;
  /** Encrypted by the application when the resulting variable is secret (see resultingSecret). */
  value: string;
  encrypted: boolean;
  locked?: boolean;
  secret?: boolean;
}

export interface CreateVariable extends CommandBase, VariableWrite {
  type: 'CreateVariable';
}

/** `locked` and `secret` left out keep their current values. */
export interface UpdateVariable extends CommandBase, VariableWrite {
  type: 'UpdateVariable';
  /** The `key` of the request body, if it had one; it must equal the key in the path. */
  bodyKey?: string;
}

export interface DeleteVariable extends CommandBase {
  type: 'DeleteVariable';
  accountId: string;
  key: string;
}

export type VariableCommand = CreateVariable | UpdateVariable | DeleteVariable;

/**
 * Whether the variable will be secret once the command applies. The application asks this before
 * encrypting: a secret stays secret whatever the command says.
 */
export function resultingSecret(state: VariableState, command: CreateVariable | UpdateVariable): boolean {
  if (command.type === 'UpdateVariable' && state.status === 'active' && state.secret) return true;
  return command.secret ?? false;
}

export function decideVariable(command: VariableCommand, state: VariableState): VariableEvent[] {
  parseInput(variableKeySchema, command.key, 'key');
  switch (command.type) {
    case 'CreateVariable': {
      if (state.status === 'active') throw new ConflictError(`variable ${command.key} already exists`);
      const secret = resultingSecret(state, command);
      checkValue(command, secret);
      return [
        {
          type: 'VariableCreated',
          data: {
            accountId: command.accountId,
            key: command.key,
            value: command.value,
            encrypted: command.encrypted,
            locked: command.locked ?? false,
            secret,
            createdBy: command.actor,
            at: command.now,
          },
        },
      ];
    }
    case 'UpdateVariable': {
      if (command.bodyKey !== undefined && command.bodyKey !== command.key) {
        throw new ValidationError(
          `key: the key of a variable cannot be changed (got ${JSON.stringify(command.bodyKey)}, expected ${JSON.stringify(command.key)})`,
        );
      }
      if (state.status !== 'active') throw new NotFoundError(`variable ${command.key} not found`);
      if (state.secret && command.secret === false) {
        throw new ValidationError('secret: a secret variable cannot be made non-secret');
      }
      const secret = resultingSecret(state, command);
      checkValue(command, secret);
      return [
        {
          type: 'VariableUpdated',
          data: {
            value: command.value,
            encrypted: command.encrypted,
            locked: command.locked ?? state.locked,
            secret,
            updatedBy: command.actor,
            at: command.now,
          },
        },
      ];
    }
    case 'DeleteVariable': {
      if (state.status !== 'active') throw new NotFoundError(`variable ${command.key} not found`);
      return [{ type: 'VariableDeleted', data: { deletedBy: command.actor, at: command.now } }];
    }
  }
}

function checkValue(command: VariableWrite, secret: boolean): void {
  // A mismatch means the application skipped (or wrongly applied) encryption: never store it.
  if (secret && !command.encrypted)
    throw new ValidationError('value: a secret variable value must be encrypted before it is stored');
  if (!secret && command.encrypted)
    throw new ValidationError('value: a non-secret variable value must be stored as plaintext');
  if (!command.encrypted) assertVariableValue(command.value);
}

export function evolveVariable(state: VariableState, event: VariableEvent): VariableState {
  switch (event.type) {
    case 'VariableCreated': {
      const { at, createdBy, ...fields } = event.data;
      return { status: 'active', ...fields, createdBy, createdAt: at, updatedBy: createdBy, updatedAt: at };
    }
    case 'VariableUpdated': {
      if (state.status !== 'active') return state;
      const { at, ...fields } = event.data;
      return { ...state, ...fields, updatedAt: at };
    }
    case 'VariableDeleted': {
      if (state.status !== 'active') return state;
      return {
        status: 'deleted',
        accountId: state.accountId,
        key: state.key,
        deletedBy: event.data.deletedBy,
        deletedAt: event.data.at,
      };
    }
  }
}

export const variableDecider: Decider<VariableCommand, VariableEvent, VariableState> = {
  initialState: () => ({ status: 'absent' }),
  evolve: evolveVariable,
  decide: decideVariable,
};
