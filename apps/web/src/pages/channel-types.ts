import type { Operations } from '../api.gen.ts';

export type Channel = Operations['GET /v1/alert-channels/{id}']['response'];
export type ChannelType = Channel['type'];
export type ServiceType = Exclude<ChannelType, 'WEBHOOK'>;

/** The types in the order the picker offers them; WEBHOOK first, as the default. */
export const CHANNEL_TYPES: ReadonlyArray<{ type: ChannelType; label: string }> = [
  { type: 'WEBHOOK', label: 'Webhook' },
  { type: 'EMAIL', label: 'Email' },
  { type: 'SLACK', label: 'Slack' },
  { type: 'PAGERDUTY', label: 'PagerDuty' },
  { type: 'OPSGENIE', label: 'Opsgenie' },
  { type: 'MSTEAMS', label: 'Microsoft Teams' },
  { type: 'DISCORD', label: 'Discord' },
  { type: 'TELEGRAM', label: 'Telegram' },
];

export const labelOf = (type: string) => CHANNEL_TYPES.find((t) => t.type === type)?.label ?? type;

/** One config field of a service type, as the form shows it; `key` is the API's field name. */
export interface FieldSpec {
  key: string;
  label: string;
  kind: 'text' | 'email' | 'url' | 'secret' | 'select';
  placeholder?: string;
  /** Left empty, the field is sent as null (the API's "none"). */
  optional?: boolean;
  options?: readonly string[];
  /** What a new channel starts with (selects). */
  initial?: string;
}

const urlField = (label: string, placeholder: string): FieldSpec => ({ key: 'url', label, kind: 'url', placeholder });

/** Each type's fields; the names are Checkly's, as the API takes them. */
export const SERVICE_FIELDS: Record<ServiceType, FieldSpec[]> = {
  EMAIL: [{ key: 'address', label: 'Email address', kind: 'email', placeholder: 'oncall@example.com' }],
  SLACK: [
    urlField('Incoming webhook URL', 'https://hooks.slack.com/services/…'),
    { key: 'channel', label: 'Channel (optional)', kind: 'text', placeholder: '#alerts', optional: true },
  ],
  PAGERDUTY: [
    { key: 'serviceKey', label: 'Integration key (Events API v2)', kind: 'secret', placeholder: '32 characters' },
    { key: 'serviceName', label: 'Service name (optional)', kind: 'text', placeholder: 'Checkout', optional: true },
  ],
  OPSGENIE: [
    { key: 'apiKey', label: 'API key', kind: 'secret', placeholder: '0e2b3c4d-…' },
    { key: 'region', label: 'Region', kind: 'select', options: ['US', 'EU'], initial: 'US' },
    { key: 'priority', label: 'Priority', kind: 'select', options: ['P1', 'P2', 'P3', 'P4', 'P5'], initial: 'P3' },
  ],
  MSTEAMS: [urlField('Workflows webhook URL', 'https://….webhook.office.com/…')],
  DISCORD: [urlField('Webhook URL', 'https://discord.com/api/webhooks/…')],
  TELEGRAM: [
    { key: 'botToken', label: 'Bot token', kind: 'secret', placeholder: '123456:ABC…' },
    { key: 'chatId', label: 'Chat id', kind: 'text', placeholder: '-1001234567890 or @channel' },
  ],
};

/** Where a channel's alerts go, in its type's terms, for the list. */
export function targetOf(channel: Channel): string {
  switch (channel.type) {
    case 'WEBHOOK':
      return `${channel.config.method} ${channel.config.url}`;
    case 'EMAIL':
      return channel.config.address;
    case 'SLACK':
      return channel.config.channel ? `${channel.config.channel} via ${channel.config.url}` : channel.config.url;
    case 'PAGERDUTY':
      return `service ${channel.config.serviceName ?? '(unnamed)'}`;
    case 'OPSGENIE':
      return `${channel.config.region} region, ${channel.config.priority}`;
    case 'MSTEAMS':
    case 'DISCORD':
      return channel.config.url;
    case 'TELEGRAM':
      return `chat ${channel.config.chatId}`;
  }
}

export function sendsOf(channel: Channel): string {
  return [
    channel.sendFailure && 'failure',
    channel.sendRecovery && 'recovery',
    channel.sendDegraded && 'degraded',
    channel.sslExpiry && 'SSL',
  ]
    .filter(Boolean)
    .join(', ');
}
