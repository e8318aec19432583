/**
 * What the CLI knows of each alert channel type: its config fields (Checkly's names, as the API
 * takes them), the defaults the API fills in, and its write-only secret. `alert-channels` and
 * `deploy` both read this table, so the flags, the project file and the plan agree on each type.
 * The values themselves are the API's to check: it names the field when one is wrong.
 */
export const CHANNEL_TYPES = [
  'WEBHOOK',
  'EMAIL',
  'SLACK',
  'PAGERDUTY',
  'OPSGENIE',
  'MSTEAMS',
  'DISCORD',
  'TELEGRAM',
] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** What the API shows instead of a secret that is set. */
export const SECRET_MASK = '********';

/** A config field the API requires (no default). */
export const REQUIRED = Symbol('required');

type Config = Record<string, unknown>;

export interface ChannelSpec {
  /** Config fields besides `name` and the secret, each with the API's default or REQUIRED. */
  fields: Record<string, unknown>;
  /** The write-only field, and whether a channel of this type cannot exist without it. */
  secret: { field: string; required: boolean } | null;
  /** Where alerts go, in a few words, for lists. */
  target(config: Config): string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const url = (config: Config) => text(config.url);

export const CHANNEL_SPECS: Record<ChannelType, ChannelSpec> = {
  WEBHOOK: {
    fields: { url: REQUIRED, method: 'POST', headers: [], queryParameters: [], template: null },
    secret: { field: 'webhookSecret', required: false },
    target: (config) => `${text(config.method) || 'POST'} ${url(config)}`,
  },
  EMAIL: { fields: { address: REQUIRED }, secret: null, target: (config) => text(config.address) },
  SLACK: {
    fields: { url: REQUIRED, channel: null },
    secret: null,
    target: (config) => (config.channel ? `${text(config.channel)} via ${url(config)}` : url(config)),
  },
  PAGERDUTY: {
    fields: { serviceName: null },
    secret: { field: 'serviceKey', required: true },
    target: (config) => `service ${text(config.serviceName) || '(unnamed)'}`,
  },
  OPSGENIE: {
    fields: { region: 'US', priority: 'P3' },
    secret: { field: 'apiKey', required: true },
    target: (config) => `${text(config.region)} region, ${text(config.priority)}`,
  },
  MSTEAMS: { fields: { url: REQUIRED }, secret: null, target: url },
  DISCORD: { fields: { url: REQUIRED }, secret: null, target: url },
  TELEGRAM: {
    fields: { chatId: REQUIRED },
    secret: { field: 'botToken', required: true },
    target: (config) => `chat ${text(config.chatId)}`,
  },
};

export function isChannelType(value: unknown): value is ChannelType {
  return typeof value === 'string' && (CHANNEL_TYPES as readonly string[]).includes(value);
}

/** A type as users write it (`slack`, `Slack`, `SLACK`), or undefined when there is no such type. */
export function channelTypeOf(value: unknown): ChannelType | undefined {
  const upper = typeof value === 'string' ? value.trim().toUpperCase() : value;
  return isChannelType(upper) ? upper : undefined;
}

/** The channel's type-specific fields (no name, no secret), as the API shows them: for a PUT that keeps them. */
export function knownConfig(type: ChannelType, config: Config): Config {
  const kept: Config = {};
  for (const field of Object.keys(CHANNEL_SPECS[type].fields))
    if (config[field] !== undefined) kept[field] = config[field];
  return kept;
}

/** The type's fields with their defaults, leaving out those the API requires. */
export function configDefaults(type: ChannelType): Config {
  return Object.fromEntries(Object.entries(CHANNEL_SPECS[type].fields).filter(([, value]) => value !== REQUIRED));
}

/** What a channel of this type cannot be created without, besides its name. */
export function requiredFields(type: ChannelType): string[] {
  const spec = CHANNEL_SPECS[type];
  const fields = Object.entries(spec.fields)
    .filter(([, value]) => value === REQUIRED)
    .map(([field]) => field);
  return spec.secret?.required ? [...fields, spec.secret.field] : fields;
}

/** The fields with a URL the receiver is reached at, for the private-address warning. */
export function urlOf(type: ChannelType, config: Config): string | undefined {
  return 'url' in CHANNEL_SPECS[type].fields && typeof config.url === 'string' ? config.url : undefined;
}
