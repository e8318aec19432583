import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, ValidationError } from '#core';
import { given } from '../testing.ts';
import {
  alertChannelDecider,
  type AlertChannelEvent,
  type CreateAlertChannel,
  type UpdateAlertChannel,
} from './alert-channel.ts';
import type { AlertChannelInput, WebhookChannel } from './alert-channel-schema.ts';

const now = '2025-01-02T03:04:05.000Z';
const channelId = '0b6c4a52-9e1d-4f3a-8c7b-2d5e6f708192';
const checkId = '3f2c1b7e-8d4a-4c2e-9b1f-0a1b2c3d4e5f';
const groupId = '7d9f8e6c-5b4a-4392-8187-6f5e4d3c2b1a';
const base = { now, actor: 'u-1', channelId, accountId: 'acc-1' };
const input: Extract<AlertChannelInput, { type?: 'WEBHOOK' }> = {
  type: 'WEBHOOK',
  config: { name: 'Ops', url: 'https://hooks.example.com/x' },
};
const create: CreateAlertChannel = {
  ...base,
  type: 'CreateAlertChannel',
  channel: input,
  webhookSecretEncrypted: null,
};
const update: UpdateAlertChannel = { ...base, type: 'UpdateAlertChannel', channel: input };

const channel: WebhookChannel = {
  id: channelId,
  accountId: 'acc-1',
  type: 'WEBHOOK',
  config: {
    name: 'Ops',
    url: 'https://hooks.example.com/x',
    method: 'POST',
    headers: [],
    queryParameters: [],
    template: null,
    webhookSecretEncrypted: null,
  },
  sendFailure: true,
  sendRecovery: true,
  sendDegraded: false,
  sslExpiry: false,
  sslExpiryThreshold: 30,
};
const created: AlertChannelEvent = { type: 'AlertChannelCreated', data: { channel, at: now } };
const withSecret = (webhookSecretEncrypted: string | null): WebhookChannel => ({
  ...channel,
  config: { ...channel.config, webhookSecretEncrypted },
});
const createdWithSecret: AlertChannelEvent = {
  type: 'AlertChannelCreated',
  data: { channel: withSecret('enc:s'), at: now },
};

describe('alert channel: create', () => {
  it('creates a webhook channel with every default', () => {
    const state = given(alertChannelDecider).when(create).thenEvents([created]);
    expect(state).toEqual({ status: 'active', channel, subscriptions: [], createdAt: now, updatedAt: now });
  });

  it('defaults the type to WEBHOOK and refuses any other type as unsupported', () => {
    given(alertChannelDecider)
      .when({ ...create, channel: { config: input.config } })
      .thenEvents([created]);
    given(alertChannelDecider)
      .when({ ...create, channel: { ...input, type: 'SMS' as 'WEBHOOK' } })
      .thenError(ValidationError, /^type: alert channel type "SMS" is not supported; the types are WEBHOOK, EMAIL/);
  });

  it('stores only the encrypted webhook secret', () => {
    const state = given(alertChannelDecider)
      .when({
        ...create,
        channel: { ...input, config: { ...input.config, webhookSecret: 's3cret' } },
        webhookSecretEncrypted: 'enc:s',
      })
      .thenEvents([createdWithSecret]);
    expect(JSON.stringify(state)).not.toContain('s3cret');
  });

  it('refuses a webhook secret the application did not encrypt', () => {
    const secretInput = { ...input, config: { ...input.config, webhookSecret: 's3cret' } };
    given(alertChannelDecider)
      .when({ ...create, channel: secretInput })
      .thenError(ValidationError, /^config\.webhookSecret/);
    given(alertChannelDecider)
      .when({ ...create, channel: secretInput, webhookSecretEncrypted: 's3cret' })
      .thenError(ValidationError, /encrypted/);
  });

  it.each([
    ['config.url', { url: 'ftp://x.example.com' }],
    ['config.url', { url: 'not a url' }],
    ['config.method', { method: 'TRACE' }],
    ['config.name', { name: '' }],
    ['config.headers[0].key', { headers: [{ key: '', value: 'v' }] }],
    ['config.template', { template: 'x'.repeat(64 * 1024 + 1) }],
  ])('refuses a bad %s, naming it', (field, patch) => {
    given(alertChannelDecider)
      .when({ ...create, channel: { ...input, config: { ...input.config, ...patch } } as AlertChannelInput })
      .thenError(ValidationError, new RegExp(`^${field.replace(/[.[\]]/g, '\\$&')}`));
  });

  it('accepts a templated URL, a 64 KiB template and every option', () => {
    const config: AlertChannelInput['config'] = {
      ...input.config,
      url: '{{BASE_URL}}/alerts',
      method: 'PUT',
      template: 'x'.repeat(64 * 1024),
      headers: [{ key: 'X-A', value: '{{CHECK_ID}}' }],
    };
    const [event] = given(alertChannelDecider)
      .when({ ...create, channel: { ...input, config, sendDegraded: true, sslExpiry: true, sslExpiryThreshold: 1 } })
      .events();
    expect(event?.type === 'AlertChannelCreated' && event.data.channel).toMatchObject({
      sendDegraded: true,
      sslExpiryThreshold: 1,
      config: { method: 'PUT' },
    });
  });

  it('limits sslExpiryThreshold to 1–30 days', () => {
    given(alertChannelDecider)
      .when({ ...create, channel: { ...input, sslExpiryThreshold: 31 } })
      .thenError(ValidationError, /^sslExpiryThreshold/);
    given(alertChannelDecider)
      .when({ ...create, channel: { ...input, sslExpiryThreshold: 0 } })
      .thenError(ValidationError, /^sslExpiryThreshold/);
  });

  it('refuses to create a channel twice', () => {
    given(alertChannelDecider, [created]).when(create).thenError(ConflictError);
  });
});

describe('alert channel: update and delete', () => {
  it('replaces the channel and keeps the stored secret when none is given', () => {
    const renamed = { ...input, config: { ...input.config, name: 'Ops 2' } };
    given(alertChannelDecider, [createdWithSecret])
      .when({ ...update, channel: renamed })
      .thenEvents([
        {
          type: 'AlertChannelUpdated',
          data: {
            channel: { ...withSecret('enc:s'), config: { ...withSecret('enc:s').config, name: 'Ops 2' } },
            at: now,
          },
        },
      ]);
  });

  it('clears the secret when the input sets it to null, and replaces it when a new one comes', () => {
    const cleared = { ...input, config: { ...input.config, webhookSecret: null } };
    given(alertChannelDecider, [createdWithSecret])
      .when({ ...update, channel: cleared })
      .thenEvents([{ type: 'AlertChannelUpdated', data: { channel: withSecret(null), at: now } }]);
    const replaced = { ...input, config: { ...input.config, webhookSecret: 'new' } };
    given(alertChannelDecider, [createdWithSecret])
      .when({ ...update, channel: replaced, webhookSecretEncrypted: 'enc:new' })
      .thenEvents([{ type: 'AlertChannelUpdated', data: { channel: withSecret('enc:new'), at: now } }]);
  });

  it('answers NotFound for an absent, deleted or other-account channel', () => {
    const deleted: AlertChannelEvent = { type: 'AlertChannelDeleted', data: { at: now } };
    given(alertChannelDecider).when(update).thenError(NotFoundError);
    given(alertChannelDecider, [created, deleted]).when(update).thenError(NotFoundError);
    given(alertChannelDecider, [created])
      .when({ ...update, accountId: 'acc-2' })
      .thenError(NotFoundError);
    given(alertChannelDecider, [created, deleted])
      .when({ ...base, type: 'DeleteAlertChannel' })
      .thenError(NotFoundError);
  });

  it('deletes a channel', () => {
    const state = given(alertChannelDecider, [created])
      .when({ ...base, type: 'DeleteAlertChannel' })
      .thenEvents([{ type: 'AlertChannelDeleted', data: { at: now } }]);
    expect(state).toEqual({ status: 'deleted', accountId: 'acc-1', channelId, deletedAt: now });
  });
});

describe('alert channel: subscriptions', () => {
  const subscribe = { ...base, type: 'SetSubscription', checkId, groupId: null, activated: true } as const;

  it('subscribes a channel to a check, then replaces that subscription', () => {
    const first = given(alertChannelDecider, [created])
      .when(subscribe)
      .thenEvents([{ type: 'SubscriptionSet', data: { checkId, groupId: null, activated: true, at: now } }]);
    expect(first.status === 'active' && first.subscriptions).toEqual([{ checkId, groupId: null, activated: true }]);
    const set: AlertChannelEvent = {
      type: 'SubscriptionSet',
      data: { checkId, groupId: null, activated: true, at: now },
    };
    const second = given(alertChannelDecider, [created, set])
      .when({ ...subscribe, activated: false })
      .thenEvents([{ type: 'SubscriptionSet', data: { checkId, groupId: null, activated: false, at: now } }]);
    expect(second.status === 'active' && second.subscriptions).toEqual([{ checkId, groupId: null, activated: false }]);
  });

  it('subscribes a channel to a group', () => {
    given(alertChannelDecider, [created])
      .when({ ...subscribe, checkId: null, groupId })
      .thenEvents([{ type: 'SubscriptionSet', data: { checkId: null, groupId, activated: true, at: now } }]);
  });

  it('refuses a subscription naming both or neither of check and group', () => {
    given(alertChannelDecider, [created])
      .when({ ...subscribe, groupId })
      .thenError(ValidationError, /either a checkId or a groupId/);
    given(alertChannelDecider, [created])
      .when({ ...subscribe, checkId: null })
      .thenError(ValidationError);
  });

  it('refuses a subscription on an unknown channel', () => {
    given(alertChannelDecider).when(subscribe).thenError(NotFoundError);
  });
});
