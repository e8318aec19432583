import { describe, expect, it } from 'vitest';
import { channelBody, missingSecrets } from './channels.ts';
import { planDeploy, type ManagedChannel } from './plan.ts';
import { projectFileSchema, type DeclaredChannel } from './schema.ts';

const lookup = (values: Record<string, string>) => (name: string) => values[name];
const SEND = { sendFailure: true, sendRecovery: true, sendDegraded: false, sslExpiry: false, sslExpiryThreshold: 30 };

/** One channel of each type, as a project file writes it (Checkly's field shapes, secrets by reference). */
const declared = [
  { logicalId: 'hook', name: 'Hook', url: 'https://hooks.example.com/v', webhookSecret: { env: 'HOOK_SECRET' } },
  { logicalId: 'mail', name: 'Mail', type: 'email', address: 'oncall@example.com' },
  { logicalId: 'slack', name: 'Slack', type: 'SLACK', url: 'https://hooks.slack.com/services/T/B/x' },
  { logicalId: 'pd', name: 'Pager', type: 'PAGERDUTY', serviceKey: { env: 'PD_KEY' }, serviceName: 'Checkout' },
  { logicalId: 'genie', name: 'Genie', type: 'opsgenie', apiKey: { env: 'GENIE_KEY' }, sendDegraded: true },
  { logicalId: 'teams', name: 'Teams', type: 'MSTEAMS', url: 'https://x.webhook.office.com/w' },
  { logicalId: 'disco', name: 'Disco', type: 'DISCORD', url: 'https://discord.com/api/webhooks/1/a' },
  { logicalId: 'bot', name: 'Bot', type: 'TELEGRAM', botToken: { env: 'BOT_TOKEN' }, chatId: '-100123' },
];

/** What the API answers for each after a deploy: the marker in the name, defaults filled in, secrets masked. */
const configs: Record<string, [string, Record<string, unknown>]> = {
  hook: [
    'WEBHOOK',
    {
      url: 'https://hooks.example.com/v',
      method: 'POST',
      headers: [],
      queryParameters: [],
      template: null,
      webhookSecret: '********',
    },
  ],
  mail: ['EMAIL', { address: 'oncall@example.com' }],
  slack: ['SLACK', { url: 'https://hooks.slack.com/services/T/B/x', channel: null }],
  pd: ['PAGERDUTY', { serviceName: 'Checkout', serviceKey: '********' }],
  genie: ['OPSGENIE', { region: 'US', priority: 'P3', apiKey: '********' }],
  teams: ['MSTEAMS', { url: 'https://x.webhook.office.com/w' }],
  disco: ['DISCORD', { url: 'https://discord.com/api/webhooks/1/a' }],
  bot: ['TELEGRAM', { chatId: '-100123', botToken: '********' }],
};

function deployed(changes: Record<string, Record<string, unknown>> = {}): ManagedChannel[] {
  return declared.map(({ logicalId, name }, index) => {
    const [type, config] = configs[logicalId]!;
    const id = `00000000-0000-4000-8000-00000000000${index}`;
    const { type: changedType, ...changed } = changes[logicalId] ?? {};
    return {
      id,
      logicalId,
      subscriptions: [],
      raw: {
        id,
        type: changedType ?? type,
        ...SEND,
        sendDegraded: logicalId === 'genie',
        problems: [],
        config: { name: `${name} [vigil:shop/${logicalId}]`, ...config, ...changed },
      },
    };
  });
}

const parse = (alertChannels: unknown[]) => projectFileSchema.safeParse({ project: 'shop', alertChannels });
const file = (alertChannels: unknown[] = declared) => projectFileSchema.parse({ project: 'shop', alertChannels });
const issues = (alertChannels: unknown[]) =>
  parse(alertChannels).error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) ?? [];

describe('alert channels in the project file', () => {
  it('accept every type in any case, stored under the API name', () => {
    const types = file().alertChannels.map((channel) => channel.type ?? '(webhook)');
    expect(types).toEqual(['(webhook)', 'EMAIL', 'SLACK', 'PAGERDUTY', 'OPSGENIE', 'MSTEAMS', 'DISCORD', 'TELEGRAM']);
  });

  it('refuse a secret written out, a missing required secret, a field of another type and an unknown type', () => {
    expect(
      issues([
        { logicalId: 'a', name: 'A', type: 'PAGERDUTY', serviceKey: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' },
        { logicalId: 'b', name: 'B', type: 'TELEGRAM', chatId: '1' },
        { logicalId: 'c', name: 'C', type: 'SLACK', url: 'https://h', address: 'x@y.z', apiKey: { env: 'K' } },
        { logicalId: 'd', name: 'D', type: 'SMS' },
        { logicalId: 'e', name: 'E', url: 'https://h', webhookSecret: 'whsec_x', config: {} },
      ]),
    ).toEqual([
      expect.stringMatching(/^alertChannels\.0\.serviceKey: is a secret .*serviceKey: \{ env: NAME \}/),
      'alertChannels.1.botToken: TELEGRAM channels need botToken: { env: NAME }; deploy reads it from that environment variable',
      expect.stringMatching(/^alertChannels\.2\.address: is not a field of SLACK channels \(they take .*url, channel/),
      expect.stringMatching(/^alertChannels\.2\.apiKey: is not a field of SLACK channels/),
      expect.stringMatching(/^alertChannels\.3\.type: must be one of WEBHOOK, EMAIL, /),
      expect.stringMatching(/^alertChannels\.4\.config: write the channel fields/),
      expect.stringMatching(
        /^alertChannels\.4\.webhookSecret: is a secret .*leave it out: deploy keeps the one stored/,
      ),
    ]);
  });
});

describe('planning channels of every type', () => {
  it('is empty when the server holds the file: masked secrets and server defaults are no change', () => {
    expect(planDeploy(file(), { groups: [], checks: [], channels: deployed(), windows: [] })).toEqual([]);
  });

  it('names the field that changed, resets a field left out to its default, and shows a change of type', () => {
    const changed = deployed({ genie: { priority: 'P1' }, slack: { channel: '#ops' }, mail: { type: 'SLACK' } });
    const steps = planDeploy(file(), { groups: [], checks: [], channels: changed, windows: [] });
    expect(
      steps.map((step) => [step.logicalId, step.changes.map((c) => `${c.path}: ${String(c.old)} → ${String(c.new)}`)]),
    ).toEqual([
      ['mail', ['type: SLACK → EMAIL', 'address: undefined → oncall@example.com']],
      ['slack', ['channel: #ops → null']],
      ['genie', ['priority: P1 → P3']],
    ]);
  });

  it('creates with the secret from its variable; an update without it keeps the stored one', () => {
    const [hook, , , pd] = file().alertChannels as DeclaredChannel[];
    expect(channelBody(pd!, 'shop', lookup({ PD_KEY: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' }))).toEqual({
      type: 'PAGERDUTY',
      config: {
        name: 'Pager [vigil:shop/pd]',
        serviceName: 'Checkout',
        serviceKey: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
      },
    });
    expect(channelBody(hook!, 'shop', lookup({}))).toEqual({
      type: 'WEBHOOK',
      config: { name: 'Hook [vigil:shop/hook]', url: 'https://hooks.example.com/v' },
    });

    const creates = planDeploy(file(), { groups: [], checks: [], channels: [], windows: [] });
    expect(missingSecrets(creates, lookup({ PD_KEY: 'k' }))).toEqual([
      'alert-channel hook: webhookSecret reads $HOOK_SECRET, which is not set',
      'alert-channel genie: apiKey reads $GENIE_KEY, which is not set',
      'alert-channel bot: botToken reads $BOT_TOKEN, which is not set',
    ]);
    // An update of the same type needs no variable; a change of type drops the stored secret, so it does.
    const updates = planDeploy(file(), {
      groups: [],
      checks: [],
      channels: deployed({ pd: { serviceName: 'Old' }, bot: { type: 'WEBHOOK' } }),
      windows: [],
    });
    expect(missingSecrets(updates, lookup({}))).toEqual([
      'alert-channel bot: botToken reads $BOT_TOKEN, which is not set',
    ]);
  });
});
