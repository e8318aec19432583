import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import { given } from '../testing.ts';
import {
  MAX_VARIABLES_PER_ACCOUNT,
  VARIABLE_VALUE_MAX_BYTES,
  assertVariableValue,
  createVariableInputSchema,
  updateVariableInputSchema,
  resultingSecret,
  variableDecider,
  type CreateVariable,
  type UpdateVariable,
  type VariableEvent,
} from './variable.ts';

const now = '2025-01-02T03:04:05.000Z';
const later = '2025-01-02T04:00:00.000Z';
const create: CreateVariable = {
  type: 'CreateVariable',
  now,
  actor: 'u-1',
  accountId: 'acc-1',
  key: 'API_TOKEN',
  value: 'v1',
  encrypted: false,
};
const update: UpdateVariable = { ...create, type: 'UpdateVariable', now: later, actor: 'u-2', value: 'v2' };
const created: VariableEvent = {
  type: 'VariableCreated',
  data: {
    accountId: 'acc-1',
    key: 'API_TOKEN',
    value: 'v1',
    encrypted: false,
    locked: false,
    secret: false,
    createdBy: 'u-1',
    at: now,
  },
};
const createdSecret: VariableEvent = {
  type: 'VariableCreated',
  data: { ...created.data, value: 'enc:v1', encrypted: true, secret: true },
} as VariableEvent;
const deleted: VariableEvent = { type: 'VariableDeleted', data: { deletedBy: 'u-1', at: now } };

describe('variable: create', () => {
  it('creates a plaintext variable with locked and secret off by default', () => {
    const state = given(variableDecider).when(create).thenEvents([created]);
    expect(state).toEqual({
      status: 'active',
      accountId: 'acc-1',
      key: 'API_TOKEN',
      value: 'v1',
      encrypted: false,
      locked: false,
      secret: false,
      createdBy: 'u-1',
      createdAt: now,
      updatedBy: 'u-1',
      updatedAt: now,
    });
  });

  it('creates a locked secret variable from an encrypted value', () => {
    given(variableDecider)
      .when({ ...create, value: 'enc:v1', encrypted: true, secret: true, locked: true })
      .thenEvents([
        {
          type: 'VariableCreated',
          data: { ...created.data, value: 'enc:v1', encrypted: true, secret: true, locked: true },
        },
      ]);
  });

  it('refuses to create an existing variable', () => {
    given(variableDecider, [created])
      .when(create)
      .thenError(ConflictError, /already exists/);
  });

  it('allows creating again after a delete', () => {
    const state = given(variableDecider, [created, deleted])
      .when({ ...create, value: 'again' })
      .thenEvents([{ type: 'VariableCreated', data: { ...created.data, value: 'again' } }]);
    expect(state).toMatchObject({ status: 'active', value: 'again' });
  });

  it.each(['1ABC', 'has-dash', 'has space', '', 'A'.repeat(129), 'ÄPFEL'])('refuses the key %j, naming key', (key) => {
    given(variableDecider)
      .when({ ...create, key })
      .thenError(ValidationError, /^key/);
  });

  it('accepts keys of 1 and 128 characters starting with an underscore or letter', () => {
    for (const key of ['_', 'a', `_${'x'.repeat(127)}`]) {
      expect(
        given(variableDecider)
          .when({ ...create, key })
          .events(),
      ).toHaveLength(1);
    }
  });

  it('limits the value to 10 000 UTF-8 bytes, naming the limit', () => {
    expect(VARIABLE_VALUE_MAX_BYTES).toBe(10_000);
    given(variableDecider)
      .when({ ...create, value: 'x'.repeat(10_000) })
      .events();
    given(variableDecider)
      .when({ ...create, value: 'x'.repeat(10_001) })
      .thenError(ValidationError, /^value: .*10000 bytes/);
    // 5 000 characters, but 10 000+ bytes: the limit counts bytes.
    given(variableDecider)
      .when({ ...create, value: 'é'.repeat(5_001) })
      .thenError(ValidationError, /10000 bytes/);
  });

  it('refuses a secret value that is not encrypted, and an encrypted non-secret value', () => {
    given(variableDecider)
      .when({ ...create, secret: true })
      .thenError(ValidationError, /must be encrypted/);
    given(variableDecider)
      .when({ ...create, encrypted: true })
      .thenError(ValidationError, /plaintext/);
  });
});

describe('variable: update', () => {
  it('updates value and locked, keeping createdAt', () => {
    const state = given(variableDecider, [created])
      .when({ ...update, locked: true })
      .thenEvents([
        {
          type: 'VariableUpdated',
          data: { value: 'v2', encrypted: false, locked: true, secret: false, updatedBy: 'u-2', at: later },
        },
      ]);
    expect(state).toMatchObject({
      value: 'v2',
      locked: true,
      createdAt: now,
      updatedAt: later,
      updatedBy: 'u-2',
      createdBy: 'u-1',
    });
  });

  it('keeps locked when the update leaves it out', () => {
    const locked = { type: 'VariableCreated', data: { ...created.data, locked: true } } as VariableEvent;
    const [event] = given(variableDecider, [locked]).when(update).events();
    expect(event?.type === 'VariableUpdated' && event.data.locked).toBe(true);
  });

  it('makes a variable secret, one way', () => {
    const state = given(variableDecider, [created])
      .when({ ...update, value: 'enc:v2', encrypted: true, secret: true })
      .thenEvents([
        {
          type: 'VariableUpdated',
          data: { value: 'enc:v2', encrypted: true, locked: false, secret: true, updatedBy: 'u-2', at: later },
        },
      ]);
    expect(state).toMatchObject({ secret: true, encrypted: true });
  });

  it('refuses to make a secret variable non-secret', () => {
    given(variableDecider, [createdSecret])
      .when({ ...update, secret: false })
      .thenError(ValidationError, /^secret: a secret variable cannot be made non-secret/);
  });

  it('keeps a secret variable secret when the update leaves secret out, so the value must arrive encrypted', () => {
    given(variableDecider, [createdSecret])
      .when(update)
      .thenError(ValidationError, /must be encrypted/);
    const [event] = given(variableDecider, [createdSecret])
      .when({ ...update, value: 'enc:v2', encrypted: true })
      .events();
    expect(event?.type === 'VariableUpdated' && event.data.secret).toBe(true);
  });

  it('refuses a body key that differs from the path key, naming key', () => {
    given(variableDecider, [created])
      .when({ ...update, bodyKey: 'OTHER' })
      .thenError(ValidationError, /^key/);
    expect(
      given(variableDecider, [created])
        .when({ ...update, bodyKey: 'API_TOKEN' })
        .events(),
    ).toHaveLength(1);
  });

  it('answers NotFound for an absent or deleted variable', () => {
    given(variableDecider).when(update).thenError(NotFoundError);
    given(variableDecider, [created, deleted]).when(update).thenError(NotFoundError);
  });

  it('limits the updated value too', () => {
    given(variableDecider, [created])
      .when({ ...update, value: 'x'.repeat(10_001) })
      .thenError(ValidationError, /10000 bytes/);
  });
});

describe('variable: delete', () => {
  const remove = { type: 'DeleteVariable', now, actor: 'u-1', accountId: 'acc-1', key: 'API_TOKEN' } as const;

  it('deletes a variable and forgets its value', () => {
    const state = given(variableDecider, [created]).when(remove).thenEvents([deleted]);
    expect(state).toEqual({
      status: 'deleted',
      accountId: 'acc-1',
      key: 'API_TOKEN',
      deletedBy: 'u-1',
      deletedAt: now,
    });
  });

  it('answers NotFound for an absent or already deleted variable', () => {
    given(variableDecider).when(remove).thenError(NotFoundError);
    given(variableDecider, [created, deleted]).when(remove).thenError(NotFoundError);
  });
});

describe('variable helpers', () => {
  const absent = { status: 'absent' } as const;
  const fold = (events: VariableEvent[]) => given(variableDecider, events).state;

  it('resultingSecret says whether the app must encrypt', () => {
    expect(resultingSecret(absent, create)).toBe(false);
    expect(resultingSecret(absent, { ...create, secret: true })).toBe(true);
    expect(resultingSecret(fold([created]), update)).toBe(false);
    expect(resultingSecret(fold([created]), { ...update, secret: true })).toBe(true);
    expect(resultingSecret(fold([createdSecret]), update)).toBe(true);
    expect(resultingSecret(fold([createdSecret]), { ...update, secret: false })).toBe(true);
    // A create after a delete starts over: the deleted variable's secrecy does not carry over.
    expect(resultingSecret(fold([createdSecret, deleted]), create)).toBe(false);
  });

  it('assertVariableValue checks plaintext before encryption', () => {
    expect(() => assertVariableValue('x'.repeat(10_000))).not.toThrow();
    expect(() => assertVariableValue('x'.repeat(10_001))).toThrow(ValidationError);
  });

  it('exports the per-account limit for the application', () => {
    expect(MAX_VARIABLES_PER_ACCOUNT).toBe(1000);
  });
});

describe('variable input schemas', () => {
  it('default locked and secret on create, but leave secret out on update', () => {
    expect(createVariableInputSchema.parse({ key: 'A', value: 'v' })).toEqual({
      key: 'A',
      value: 'v',
      locked: false,
      secret: false,
    });
    expect(updateVariableInputSchema.parse({ value: 'v' })).toEqual({ value: 'v' });
    expect(createVariableInputSchema.safeParse({ key: 'A-B', value: 'v' }).error?.issues[0]?.path).toEqual(['key']);
    expect(updateVariableInputSchema.safeParse({ value: 'x'.repeat(10_001) }).error?.issues[0]?.message).toMatch(
      /10000 bytes/,
    );
  });
});
