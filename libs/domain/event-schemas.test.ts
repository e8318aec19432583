import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InternalError } from '#core';
import { fold, type Decider } from './decider.ts';
import { eventSchemas, isDomainEventType, parseEvent, type DomainEvent } from './event-schemas.ts';
import { streamNames } from './streams.ts';
import { accountDecider } from './account/account.ts';
import { userDecider } from './user/user.ts';
import { userEmailDecider } from './user/user-email.ts';
import { apiKeyDecider } from './api-key/api-key.ts';
import { variableDecider } from './variable/variable.ts';
import { checkDecider } from './check/check.ts';
import { checkGroupDecider } from './check-group/check-group.ts';
import { alertChannelDecider } from './alert-channel/alert-channel.ts';
import { statusPageDecider } from './status-page/status-page.ts';
import { statusPageSlugDecider } from './status-page/status-page-slug.ts';
import { maintenanceWindowDecider } from './maintenance-window/maintenance-window.ts';
import { privateLocationDecider } from './private-location/private-location.ts';

const now = '2025-01-02T03:04:05.000Z';
const base = { now, actor: 'u-1' };
const checkId = '3f2c1b7e-8d4a-4c2e-9b1f-0a1b2c3d4e5f';
const heartbeatCheckId = '5a1e2b3c-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const groupId = '7d9f8e6c-5b4a-4392-8187-6f5e4d3c2b1a';
const channelId = '0b6c4a52-9e1d-4f3a-8c7b-2d5e6f708192';

/** Decides each command against the state so far, as the application would, and keeps every event. */
function run<C, E, S>(decider: Decider<C, E, S>, commands: C[]): E[] {
  const events: E[] = [];
  for (const command of commands) events.push(...decider.decide(command, fold(decider, events)));
  return events;
}

function lifeOfEveryAggregate(): DomainEvent[] {
  const channel = { config: { name: 'Ops', url: 'https://example.com/hook', webhookSecret: 's' } };
  const scope = { ...base, accountId: 'acc-1' };
  return [
    ...run(accountDecider, [
      { ...base, type: 'CreateAccount', accountId: 'acc-1', name: 'Acme', plan: 'enterprise' },
      { ...base, type: 'UpdateAccount', accountId: 'acc-1', name: 'Acme 2' },
    ]),
    ...run(userEmailDecider, [{ ...base, type: 'ReserveEmail', email: 'a@example.com', userId: 'u-1' }]),
    ...run(userDecider, [
      { ...base, type: 'RegisterUser', userId: 'u-1', email: 'a@example.com' },
      { ...base, type: 'AddUserToAccount', actorRole: 'OWNER', userId: 'u-1', accountId: 'acc-1', role: 'ADMIN' },
      { ...base, type: 'ChangeUserRole', actorRole: 'OWNER', userId: 'u-1', accountId: 'acc-1', role: 'READ_ONLY' },
      { ...base, type: 'RemoveUserFromAccount', actorRole: 'OWNER', userId: 'u-1', accountId: 'acc-1' },
    ]),
    ...run(apiKeyDecider, [
      {
        ...base,
        type: 'CreateApiKey',
        keyId: 'k',
        name: 'k',
        keyType: 'service',
        userId: null,
        accountId: 'acc-1',
        role: 'ADMIN',
        hash: 'f'.repeat(64),
        last4: 'abcd',
        actorRole: 'OWNER',
        accountPlan: 'enterprise',
      },
      { ...base, type: 'RevokeApiKey', keyId: 'k', actorUserId: 'u-1', actorRole: 'OWNER' },
    ]),
    ...run(variableDecider, [
      { ...scope, type: 'CreateVariable', key: 'A', value: 'v', encrypted: false },
      { ...scope, type: 'UpdateVariable', key: 'A', value: 'enc', encrypted: true, secret: true },
      { ...scope, type: 'DeleteVariable', key: 'A' },
    ]),
    ...run(checkDecider, [
      { ...scope, type: 'CreateCheck', checkId, check: { name: 'c', checkType: 'DNS', groupId } },
      { ...scope, type: 'UpdateCheck', checkId, check: { name: 'c2', checkType: 'DNS', alertSettings: {} } },
      { ...scope, type: 'DeleteCheck', checkId },
    ]),
    ...run(checkDecider, [
      {
        ...scope,
        type: 'CreateCheck',
        checkId: heartbeatCheckId,
        pingToken: 'tok_0123456789abcdefghij',
        check: { name: 'hb', checkType: 'HEARTBEAT', heartbeat: { period: 5 } },
      },
      { ...scope, type: 'RotateHeartbeatToken', checkId: heartbeatCheckId, pingToken: 'tok_abcdefghij0123456789' },
      {
        ...scope,
        type: 'CreateCheckTrigger',
        checkId: heartbeatCheckId,
        triggerId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
        token: 'trg_0123456789abcdefghij',
      },
      {
        ...scope,
        type: 'CallCheckTrigger',
        checkId: heartbeatCheckId,
        triggerId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      },
      { ...scope, type: 'DeleteCheckTrigger', checkId: heartbeatCheckId },
    ]),
    ...run(checkGroupDecider, [
      {
        ...scope,
        type: 'CreateCheckGroup',
        groupId,
        group: { name: 'g', environmentVariables: [{ key: 'K', value: 'v' }] },
      },
      { ...scope, type: 'UpdateCheckGroup', groupId, group: { name: 'g2' } },
      {
        ...scope,
        type: 'CreateGroupTrigger',
        groupId,
        triggerId: '2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f',
        token: 'trg_0123456789abcdefghij',
      },
      { ...scope, type: 'CallGroupTrigger', groupId, triggerId: '2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f' },
      { ...scope, type: 'DeleteGroupTrigger', groupId },
      { ...scope, type: 'DeleteCheckGroup', groupId, checkCount: 0 },
    ]),
    ...run(alertChannelDecider, [
      { ...scope, type: 'CreateAlertChannel', channelId, channel, webhookSecretEncrypted: 'enc:s' },
      { ...scope, type: 'SetSubscription', channelId, checkId: null, groupId, activated: true },
      {
        ...scope,
        type: 'UpdateAlertChannel',
        channelId,
        channel: { ...channel, config: { ...channel.config, webhookSecret: undefined } },
      },
      { ...scope, type: 'DeleteAlertChannel', channelId },
    ]),
    ...run(statusPageSlugDecider, [
      { ...base, type: 'ReserveStatusPageSlug', slug: 'acme', pageId: channelId },
      { ...base, type: 'ReleaseStatusPageSlug', slug: 'acme', pageId: channelId },
    ]),
    ...run(statusPageDecider, [
      {
        ...scope,
        type: 'CreateStatusPage',
        pageId: channelId,
        page: { slug: 'acme', title: 'Acme', checkIds: [checkId] },
        knownCheckIds: [checkId],
      },
      {
        ...scope,
        type: 'UpdateStatusPage',
        pageId: channelId,
        page: { slug: 'acme', title: 'Acme status', checkIds: [] },
        knownCheckIds: [],
      },
      { ...scope, type: 'DeleteStatusPage', pageId: channelId },
    ]),
    ...run(maintenanceWindowDecider, [
      {
        ...scope,
        type: 'CreateMaintenanceWindow',
        windowId: channelId,
        window: { name: 'Deploy', tags: ['api'], startsAt: '2025-01-03T22:00:00Z', endsAt: '2025-01-03T23:00:00Z' },
        knownCheckIds: [],
      },
      {
        ...scope,
        type: 'UpdateMaintenanceWindow',
        windowId: channelId,
        window: {
          name: 'Deploy',
          checkIds: [checkId],
          startsAt: '2025-01-03T22:00:00Z',
          endsAt: '2025-01-03T23:00:00Z',
          repeatUnit: 'WEEK',
          repeatInterval: 1,
        },
        knownCheckIds: [checkId],
      },
      { ...scope, type: 'DeleteMaintenanceWindow', windowId: channelId },
    ]),
    ...run(privateLocationDecider, [
      {
        ...scope,
        type: 'CreatePrivateLocation',
        locationId: channelId,
        location: { name: 'Office', slugName: 'office' },
        takenSlugs: [],
        publicLocations: [],
      },
      {
        ...scope,
        type: 'UpdatePrivateLocation',
        locationId: channelId,
        location: { name: 'Office', slugName: 'office-berlin', icon: 'location' },
        takenSlugs: [],
        publicLocations: [],
        slugInUse: false,
      },
      {
        ...scope,
        type: 'AddPrivateLocationKey',
        locationId: channelId,
        keyId: checkId,
        hash: 'b'.repeat(64),
        last4: 'abcd',
      },
      { ...scope, type: 'RevokePrivateLocationKey', locationId: channelId, keyId: checkId },
      { ...scope, type: 'DeletePrivateLocation', locationId: channelId },
    ]),
  ];
}

describe('event schema registry', () => {
  const events = lifeOfEveryAggregate();

  it('covers exactly the event types the deciders produce', () => {
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(Object.keys(eventSchemas)));
  });

  it('parses every decided event back unchanged, including after a JSON round trip', () => {
    for (const event of events) {
      expect(parseEvent(event.type, event.data)).toEqual(event);
      expect(parseEvent(event.type, JSON.parse(JSON.stringify(event.data)))).toEqual(event);
    }
  });

  it('refuses an unknown type or malformed data as an internal error', () => {
    expect(() => parseEvent('NoSuchThing', {})).toThrow(InternalError);
    expect(() => parseEvent('VariableDeleted', { deletedBy: 'u', at: 'yesterday' })).toThrow(InternalError);
    expect(() => parseEvent('toString', {})).toThrow(InternalError);
    expect(isDomainEventType('CheckCreated')).toBe(true);
    expect(isDomainEventType('constructor')).toBe(false);
  });

  it('turns every schema into JSON Schema, so schemas/*.json can be generated', () => {
    for (const [type, schema] of Object.entries(eventSchemas)) {
      expect(z.toJSONSchema(schema, { io: 'input' }), type).toHaveProperty('type', 'object');
    }
  });
});

describe('streamNames', () => {
  it('names streams <aggregate>-<id>', () => {
    expect(streamNames.account('a')).toBe('account-a');
    expect(streamNames.user('u')).toBe('user-u');
    expect(streamNames.userEmail('a@example.com')).toBe('user-email-a@example.com');
    expect(streamNames.apiKey('k')).toBe('api-key-k');
    expect(streamNames.variable('acc', 'KEY')).toBe('variable-acc-KEY');
    expect(streamNames.check('c')).toBe('check-c');
    expect(streamNames.checkGroup('g')).toBe('check-group-g');
    expect(streamNames.alertChannel('x')).toBe('alert-channel-x');
  });
});

describe('fold', () => {
  it('starts from the initial state and applies events in order', () => {
    const counter = {
      initialState: () => [] as string[],
      evolve: (s: string[], e: string) => [...s, e],
      decide: () => [] as string[],
    };
    expect(fold(counter, [])).toEqual([]);
    expect(fold(counter, ['a', 'b', 'c'])).toEqual(['a', 'b', 'c']);
  });
});
