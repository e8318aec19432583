import { describe, expect, it } from 'vitest';
import { diffFields } from './diff.ts';
import { planDeploy, type RemoteState } from './plan.ts';
import { projectFileSchema } from './schema.ts';

const GROUP_ID = '00000000-0000-4000-8000-000000000001';
const CHECK_ID = '00000000-0000-4000-8000-000000000002';
const CHANNEL_ID = '00000000-0000-4000-8000-000000000003';
const HAND_CHECK_ID = '00000000-0000-4000-8000-000000000004';

const file = (extra: Record<string, unknown> = {}) =>
  projectFileSchema.parse({
    project: 'shop',
    checkGroups: [{ logicalId: 'g', name: 'G' }],
    checks: [
      {
        logicalId: 'c',
        name: 'C',
        checkType: 'API',
        group: 'g',
        request: { url: 'https://x', assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }] },
      },
    ],
    alertChannels: [{ logicalId: 'ops', name: 'Ops', url: 'https://hook' }],
    subscriptions: [{ channel: 'ops', check: 'c' }],
    ...extra,
  });

/** The server's side of `file()` after a deploy: defaults filled in, markers on. */
function remote(overrides: { check?: Record<string, unknown>; subscriptions?: unknown[] } = {}): RemoteState {
  return {
    groups: [
      {
        id: GROUP_ID,
        logicalId: 'g',
        raw: { id: GROUP_ID, name: 'G', tags: ['vigil:project=shop', 'vigil:logical=g'], runtimeId: null },
      },
    ],
    checks: [
      {
        id: CHECK_ID,
        logicalId: 'c',
        raw: {
          id: CHECK_ID,
          name: 'C',
          checkType: 'API',
          activated: true,
          muted: false,
          frequency: 10,
          tags: ['vigil:project=shop', 'vigil:logical=c'],
          locations: [],
          groupId: GROUP_ID,
          degradedResponseTime: 5000,
          maxResponseTime: 20000,
          request: {
            url: 'https://x',
            method: 'GET',
            headers: [],
            assertions: [{ source: 'STATUS_CODE', property: '', comparison: 'EQUALS', target: '200' }],
          },
          ...overrides.check,
        },
      },
    ],
    channels: [
      {
        id: CHANNEL_ID,
        logicalId: 'ops',
        raw: {
          id: CHANNEL_ID,
          type: 'WEBHOOK',
          config: {
            name: 'Ops [vigil:shop/ops]',
            url: 'https://hook',
            method: 'POST',
            headers: [],
            queryParameters: [],
            template: null,
            webhookSecret: '********',
          },
          sendFailure: true,
          sendRecovery: true,
          sendDegraded: false,
          sslExpiry: false,
          sslExpiryThreshold: 30,
        },
        subscriptions: (overrides.subscriptions as never) ?? [{ checkId: CHECK_ID, groupId: null, activated: true }],
      },
    ],
    windows: [],
  };
}

describe('planDeploy', () => {
  it('creates everything on an empty account, groups before checks, channels before subscriptions', () => {
    const steps = planDeploy(file(), { groups: [], checks: [], channels: [], windows: [] });
    expect(steps.map((s) => `${s.action} ${s.kind} ${s.logicalId}`)).toEqual([
      'create check-group g',
      'create check c',
      'create alert-channel ops',
      'create subscription ops → check c',
    ]);
  });

  it('is empty when the server holds what the file declares (server defaults are not changes)', () => {
    expect(planDeploy(file(), remote())).toEqual([]);
  });

  it('names each changed field with the old and new value, nested fields by path', () => {
    const steps = planDeploy(
      file(),
      remote({ check: { frequency: 5, request: { url: 'https://y', assertions: [] } } }),
    );
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ action: 'update', kind: 'check', id: CHECK_ID });
    expect(steps[0]!.changes).toEqual([
      { path: 'request.url', old: 'https://y', new: 'https://x' },
      {
        path: 'request.assertions',
        old: [],
        new: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
      },
      { path: 'frequency', old: 5, new: 10 },
    ]);
  });

  it('a field removed from the file goes back to the default', () => {
    const steps = planDeploy(
      file(),
      remote({ check: { muted: true, tags: ['vigil:project=shop', 'vigil:logical=c', 'x'] } }),
    );
    expect(steps[0]!.changes).toEqual([
      { path: 'muted', old: true, new: false },
      { path: 'tags', old: ['x'], new: [] },
    ]);
  });

  it('deletes what left the file, subscriptions first and groups last; a deleted resource takes its subscription along', () => {
    const steps = planDeploy(file({ checkGroups: [], checks: [], subscriptions: [] }), remote());
    expect(steps.map((s) => `${s.action} ${s.kind} ${s.logicalId}`)).toEqual([
      'delete check c',
      'delete check-group g',
    ]);
    const unsubscribed = planDeploy(file({ subscriptions: [] }), remote());
    expect(unsubscribed.map((s) => `${s.action} ${s.kind} ${s.logicalId} ${s.id}`)).toEqual([
      `delete subscription ops → check c ${CHANNEL_ID}`,
    ]);
  });

  it('deletes a later duplicate of a logical id and keeps the first', () => {
    const state = remote();
    const copy = { ...state.checks[0]!, id: HAND_CHECK_ID, raw: { ...state.checks[0]!.raw, id: HAND_CHECK_ID } };
    const steps = planDeploy(file(), { ...state, checks: [...state.checks, copy] });
    expect(steps.map((s) => `${s.action} ${s.kind} ${s.logicalId} ${s.id}`)).toEqual([
      `delete check c ${HAND_CHECK_ID}`,
    ]);
  });

  it('leaves a subscription to a hand-made check alone', () => {
    const subscriptions = [
      { checkId: CHECK_ID, activated: true },
      { checkId: HAND_CHECK_ID, activated: true },
    ];
    expect(planDeploy(file(), remote({ subscriptions }))).toEqual([]);
  });
});

describe('diffFields', () => {
  it('treats a masked value as unknown, not as a change', () => {
    expect(
      diffFields(
        { environmentVariables: [{ key: 'K', value: 'secret' }] },
        {
          environmentVariables: [{ key: 'K', value: '********', locked: true }],
        },
      ),
    ).toEqual([]);
  });
});

describe('projectFileSchema', () => {
  it('refuses duplicate logical ids, dangling references and deploy-owned fields, naming each', () => {
    const parsed = projectFileSchema.safeParse({
      project: 'shop',
      checks: [
        { logicalId: 'a', name: 'A', checkType: 'API', groupId: 'x', tags: ['vigil:project=other'] },
        { logicalId: 'a', name: 'B', checkType: 'API' },
      ],
      alertChannels: [{ logicalId: 'o', name: 'O', url: 'https://h', webhookSecret: 'whsec_x' }],
      subscriptions: [{ channel: 'nope', check: 'a' }],
    });
    expect(parsed.success).toBe(false);
    const issues = parsed.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues).toEqual(
      expect.arrayContaining([
        'checks.0.groupId: use group: <logicalId of a check group>',
        'checks.0.tags: tags starting with "vigil:" are set by deploy',
        'checks.1.logicalId: duplicate a',
        expect.stringMatching(/^alertChannels\.0\.webhookSecret: is a secret/),
        'subscriptions.0.channel: no alert channel with logicalId nope in this file',
      ]),
    );
  });
});
