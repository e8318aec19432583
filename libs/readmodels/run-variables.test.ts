import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createSecretBox } from '#core';
import { createSqliteStateStore, type StateStore } from '#statestore';
import { keys } from './keys.ts';
import { ReadModels } from './reader.ts';
import { resolveRunVariables } from './run-variables.ts';

// Issue 21, item 3: what a run may report follows the one masking rule. Every value is
// substituted; the values the run's reader may not see are handed to the scrubber.

const stores: StateStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

const box = createSecretBox(randomBytes(32));
const ACCOUNT = 'acct-1';

async function setUp() {
  const store = createSqliteStateStore({ path: ':memory:' });
  stores.push(store);
  const variable = (key: string, value: string, flags: { locked?: boolean; secret?: boolean; createdBy?: string }) => {
    const secret = flags.secret ?? false;
    const doc = {
      status: 'active',
      accountId: ACCOUNT,
      key,
      value: secret ? box.encrypt(value) : value,
      encrypted: secret,
      locked: flags.locked ?? false,
      secret,
      createdBy: flags.createdBy ?? 'user-owner',
      createdAt: '2024-01-01T00:00:00.000Z',
      updatedBy: 'user-owner',
      updatedAt: '2024-01-01T00:00:00.000Z',
    };
    return [
      { op: 'set', key: keys.doc('variable', `${ACCOUNT}-${key}`), value: JSON.stringify(doc) },
      { op: 'zadd', key: keys.accountVariables(ACCOUNT), member: key, score: 0 },
    ] as const;
  };
  await store.write([
    ...variable('OPEN', 'open-value', {}),
    ...variable('LOCKED', 'locked-value', { locked: true, createdBy: 'user-writer' }),
    ...variable('SECRET', 'secret-value', { secret: true }),
    ...variable('EMPTY_LOCKED', '', { locked: true }),
  ]);
  return new ReadModels(store);
}

const group = {
  id: '00000000-0000-4000-8000-000000000001',
  name: 'g',
  tags: [],
  runtimeId: null,
  locations: [],
  environmentVariables: [
    { key: 'GROUP_LOCKED', value: 'group-locked-value', locked: true },
    { key: 'GROUP_OPEN', value: 'group-open-value', locked: false },
  ],
};

describe('resolveRunVariables', () => {
  it('substitutes every value, whoever reads the run', async () => {
    const readModels = await setUp();
    const { variables } = await resolveRunVariables(readModels, box, ACCOUNT, group, {
      role: 'READ_ONLY',
      actor: 'someone',
    });
    expect(variables).toEqual({
      OPEN: 'open-value',
      LOCKED: 'locked-value',
      SECRET: 'secret-value',
      EMPTY_LOCKED: '',
      GROUP_LOCKED: 'group-locked-value',
      GROUP_OPEN: 'group-open-value',
    });
  });

  it('a stored run (no viewer) scrubs every secret and every locked value, account and group', async () => {
    const readModels = await setUp();
    const { secretValues } = await resolveRunVariables(readModels, box, ACCOUNT, group);
    expect(secretValues.sort()).toEqual(['group-locked-value', 'locked-value', 'secret-value']);
  });

  it.each([
    ['READ_WRITE', 'someone', ['group-locked-value', 'locked-value', 'secret-value']],
    ['READ_ONLY', 'someone', ['group-locked-value', 'locked-value', 'secret-value']],
    // The creator of a locked account variable may read it; group variables record no creator.
    ['READ_WRITE', 'user-writer', ['group-locked-value', 'secret-value']],
    ['ADMIN', 'someone', ['secret-value']],
    ['OWNER', 'someone', ['secret-value']],
  ] as const)('a test run by %s (%s) scrubs what GET /v1/variables would mask', async (role, actor, hidden) => {
    const readModels = await setUp();
    const { secretValues } = await resolveRunVariables(readModels, box, ACCOUNT, group, { role, actor });
    expect(secretValues.sort()).toEqual([...hidden].sort());
  });
});
