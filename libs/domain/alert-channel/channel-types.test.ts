import { describe, expect, it } from 'vitest';
import { ValidationError } from '#core';
import { given } from '../testing.ts';
import {
  alertChannelDecider,
  parseAlertChannelEvent,
  type CreateAlertChannel,
  type UpdateAlertChannel,
} from './alert-channel.ts';
import type { AlertChannelInput } from './alert-channel-schema.ts';

const now = '2026-11-25T10:00:00.000Z';
const channelId = '0b6c4a52-9e1d-4f3a-8c7b-2d5e6f708192';
const base = { now, actor: 'u-1', channelId, accountId: 'acc-1' };
const options = {
  sendFailure: true,
  sendRecovery: true,
  sendDegraded: false,
  sslExpiry: false,
  sslExpiryThreshold: 30,
};
const routingKey = 'R0123456789abcdefABCDEF012345678';
const genieKey = '0e2b3c4d-5f60-4a7b-8c9d-0e1f2a3b4c5d';
const create = (channel: AlertChannelInput, secretEncrypted: string | null = null): CreateAlertChannel => ({
  ...base,
  type: 'CreateAlertChannel',
  channel,
  secretEncrypted,
});
const update = (channel: AlertChannelInput, secretEncrypted?: string | null): UpdateAlertChannel => ({
  ...base,
  type: 'UpdateAlertChannel',
  channel,
  ...(secretEncrypted === undefined ? {} : { secretEncrypted }),
});

describe('alert channel types beyond webhooks', () => {
  it('stores each type with its defaults and only the sealed secret', () => {
    const cases: [AlertChannelInput, string | null, Record<string, unknown>][] = [
      [
        { type: 'EMAIL', config: { name: 'e', address: 'oncall@example.com' } },
        null,
        { address: 'oncall@example.com' },
      ],
      [
        { type: 'SLACK', config: { name: 's', url: 'https://hooks.slack.com/services/T/B/x' } },
        null,
        { channel: null },
      ],
      [
        { type: 'PAGERDUTY', config: { name: 'p', serviceKey: routingKey } },
        'enc:pd',
        { serviceKeyEncrypted: 'enc:pd', serviceName: null },
      ],
      [
        { type: 'OPSGENIE', config: { name: 'o', apiKey: genieKey } },
        'enc:og',
        { apiKeyEncrypted: 'enc:og', region: 'US', priority: 'P3' },
      ],
      [{ type: 'MSTEAMS', config: { name: 't', url: 'https://example.webhook.office.com/x' } }, null, {}],
      [{ type: 'DISCORD', config: { name: 'd', url: 'https://discord.com/api/webhooks/1/x' } }, null, {}],
      [
        { type: 'TELEGRAM', config: { name: 'tg', botToken: `123456:${'A'.repeat(35)}`, chatId: '-1001234' } },
        'enc:tg',
        { botTokenEncrypted: 'enc:tg', chatId: '-1001234' },
      ],
    ];
    for (const [input, sealed, expected] of cases) {
      const events = given(alertChannelDecider).when(create(input, sealed)).events();
      const channel = (events[0]!.data as { channel: { type: string; config: Record<string, unknown> } }).channel;
      expect(channel.type).toBe(input.type);
      // As read back from the store.
      expect(parseAlertChannelEvent(events[0]!.type, JSON.parse(JSON.stringify(events[0]!.data)))).toEqual(events[0]);
      expect(channel.config).toMatchObject(expected);
      // No plaintext secret is in the event.
      expect(JSON.stringify(events)).not.toContain(routingKey);
      expect(JSON.stringify(events)).not.toContain(genieKey);
      expect(JSON.stringify(events)).not.toContain('A'.repeat(35));
    }
  });

  it.each([
    ['config.address', { type: 'EMAIL', config: { name: 'e', address: 'not an address' } }],
    ['config.address', { type: 'EMAIL', config: { name: 'e', address: 'a@b' } }],
    ['config.serviceKey', { type: 'PAGERDUTY', config: { name: 'p', serviceKey: 'short' } }],
    ['config.apiKey', { type: 'OPSGENIE', config: { name: 'o', apiKey: 'GenieKey abc' } }],
    ['config.region', { type: 'OPSGENIE', config: { name: 'o', apiKey: genieKey, region: 'APAC' } }],
    ['config.priority', { type: 'OPSGENIE', config: { name: 'o', apiKey: genieKey, priority: 'P9' } }],
    ['config.url', { type: 'SLACK', config: { name: 's', url: 'ftp://hooks.slack.com/x' } }],
    ['config.botToken', { type: 'TELEGRAM', config: { name: 't', botToken: 'nope', chatId: '1' } }],
    ['config.chatId', { type: 'TELEGRAM', config: { name: 't', botToken: `1234:${'a'.repeat(32)}`, chatId: 'x y' } }],
  ])('refuses a bad %s, naming it', (field, channel) => {
    given(alertChannelDecider)
      .when(create(channel as AlertChannelInput, 'enc:x'))
      .thenError(ValidationError, new RegExp(`^${field.replace(/[.[\]]/g, '\\$&')}: `));
  });

  it('requires the secret of the types that have one, and refuses plaintext without its ciphertext', () => {
    given(alertChannelDecider)
      .when(create({ type: 'PAGERDUTY', config: { name: 'p' } }))
      .thenError(ValidationError, /^config\.serviceKey: required for a PAGERDUTY channel/);
    given(alertChannelDecider)
      .when(create({ type: 'OPSGENIE', config: { name: 'o', apiKey: '********' } }))
      .thenError(ValidationError, /^config\.apiKey: required/);
    given(alertChannelDecider)
      .when({
        ...create({ type: 'PAGERDUTY', config: { name: 'p', serviceKey: routingKey } }),
        secretEncrypted: undefined,
      })
      .thenError(ValidationError, /^config\.serviceKey: the secret must be encrypted/);
  });

  it('keeps the stored secret on an update that leaves it out or sends the mask, and replaces it when given', () => {
    const pd = (serviceKey?: string): AlertChannelInput => ({
      type: 'PAGERDUTY',
      config: { name: 'p', ...(serviceKey === undefined ? {} : { serviceKey }) },
      ...options,
    });
    const created = given(alertChannelDecider)
      .when(create(pd(routingKey), 'enc:1'))
      .events();
    const keyAfter = (command: UpdateAlertChannel) => {
      const [event] = given(alertChannelDecider, created).when(command).events();
      return (event!.data as { channel: { config: { serviceKeyEncrypted: string } } }).channel.config
        .serviceKeyEncrypted;
    };
    expect(keyAfter(update(pd()))).toBe('enc:1');
    expect(keyAfter(update(pd('********')))).toBe('enc:1');
    expect(keyAfter(update(pd(routingKey.toLowerCase()), 'enc:2'))).toBe('enc:2');
    // A channel changed to another type with a secret must bring its own.
    given(alertChannelDecider, created)
      .when(update({ type: 'OPSGENIE', config: { name: 'o' } }))
      .thenError(ValidationError, /^config\.apiKey: required/);
  });
});
