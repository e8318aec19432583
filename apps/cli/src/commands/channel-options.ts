import { InvalidArgumentError, Option, type Command } from 'commander';
import { CHANNEL_SPECS, CHANNEL_TYPES, channelTypeOf, type ChannelType } from '../channel-types.ts';
import { UsageError } from '../errors.ts';
import { integer, pairs, readText } from '../input.ts';

/**
 * The flags of `alert-channels create` and `update`: one per config field of each type, grouped
 * by type in --help. A flag that belongs to another type is a usage error, so `--address` on a
 * Slack channel is never silently dropped.
 */
interface ConfigFlag {
  field: string;
  flags: string;
  /** Commander's property for the flag. */
  attr: string;
  help: string;
  types: readonly ChannelType[];
  parse?: (raw: string, previous?: unknown) => unknown;
  /** Reads the value when it names a file or standard input. */
  read?: (value: string) => Promise<string>;
  /** `--no-<flag>` on update: clears an optional field. */
  clears?: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'HEAD', 'DELETE'];
const URL_TYPES = ['WEBHOOK', 'SLACK', 'MSTEAMS', 'DISCORD'] as const;
// --help lists the flags by the type they belong to; --url, shared, sits with the webhook's.
const LABELS: Partial<Record<ChannelType, string>> = {
  WEBHOOK: 'Webhook',
  EMAIL: 'Email',
  SLACK: 'Slack',
  PAGERDUTY: 'PagerDuty',
  OPSGENIE: 'Opsgenie',
  TELEGRAM: 'Telegram',
};
function groupOf(type: ChannelType, mode: 'create' | 'update'): string {
  const select = mode === 'create' ? ` (--type ${type.toLowerCase()}${type === 'WEBHOOK' ? ', the default' : ''})` : '';
  const shared = type === 'WEBHOOK' ? '; --url also for slack, msteams and discord' : '';
  return `${LABELS[type]} options${select}${shared}:`;
}

/** A choice from a fixed list, in any case (`eu`, `EU`). */
function upperChoice(choices: readonly string[]) {
  return (raw: string): string => {
    const value = raw.trim().toUpperCase();
    if (!choices.includes(value)) throw new InvalidArgumentError(`expected one of ${choices.join(', ')}`);
    return value;
  };
}

/** `--type`: any case, the API's names. */
export function parseChannelType(raw: string): ChannelType {
  const type = channelTypeOf(raw);
  if (!type) throw new InvalidArgumentError(`expected one of ${CHANNEL_TYPES.map((t) => t.toLowerCase()).join(', ')}`);
  return type;
}

// A secret on the command line lands in shell history and the process list: @file and - avoid that.
const readSecret = async (value: string) => (await readText(value)).trim();
const secretHelp = (what: string) => `${what} (write-only), or @file, or - for standard input`;

const FLAGS: ConfigFlag[] = [
  {
    field: 'url',
    flags: '--url <url>',
    attr: 'url',
    help: 'where to deliver: a webhook URL (may be a template, e.g. {{BASE_URL}}/hook) or the Slack, Teams or Discord incoming-webhook URL',
    types: URL_TYPES,
  },
  {
    field: 'method',
    flags: '--method <method>',
    attr: 'method',
    help: `HTTP method (default POST): ${METHODS.join(', ')}`,
    types: ['WEBHOOK'],
    parse: upperChoice(METHODS),
  },
  {
    field: 'headers',
    flags: '--header <Name:value>',
    attr: 'header',
    help: 'a request header; repeat for more (on update: replaces all)',
    types: ['WEBHOOK'],
    parse: pairs(':') as ConfigFlag['parse'],
  },
  {
    field: 'queryParameters',
    flags: '--query <name=value>',
    attr: 'query',
    help: 'a query parameter; repeat for more (on update: replaces all)',
    types: ['WEBHOOK'],
    parse: pairs('=') as ConfigFlag['parse'],
  },
  {
    field: 'template',
    flags: '--template <body>',
    attr: 'template',
    help: 'body template (Handlebars), or @file',
    types: ['WEBHOOK'],
    read: readText,
  },
  {
    field: 'webhookSecret',
    flags: '--secret <secret>',
    attr: 'secret',
    help: secretHelp('sign deliveries with HMAC-SHA256; a whsec_… secret adds Standard Webhooks headers'),
    types: ['WEBHOOK'],
    read: readSecret,
    clears: '--no-secret',
  },
  { field: 'address', flags: '--address <email>', attr: 'address', help: 'the recipient', types: ['EMAIL'] },
  {
    field: 'channel',
    flags: '--channel <#name>',
    attr: 'channel',
    help: 'the Slack channel to post in (default: the one the webhook was made for)',
    types: ['SLACK'],
    clears: '--no-channel',
  },
  {
    field: 'serviceKey',
    flags: '--service-key <key>',
    attr: 'serviceKey',
    help: secretHelp('the Events API v2 integration (routing) key'),
    types: ['PAGERDUTY'],
    read: readSecret,
  },
  {
    field: 'serviceName',
    flags: '--service-name <name>',
    attr: 'serviceName',
    help: 'the PagerDuty service, for people reading the channel',
    types: ['PAGERDUTY'],
    clears: '--no-service-name',
  },
  {
    field: 'apiKey',
    flags: '--api-key <key>',
    attr: 'apiKey',
    help: secretHelp('the Opsgenie API integration key'),
    types: ['OPSGENIE'],
    read: readSecret,
  },
  {
    field: 'region',
    flags: '--region <region>',
    attr: 'region',
    help: 'US or EU (default US)',
    types: ['OPSGENIE'],
    parse: upperChoice(['US', 'EU']),
  },
  {
    field: 'priority',
    flags: '--priority <priority>',
    attr: 'priority',
    help: 'P1 to P5 (default P3)',
    types: ['OPSGENIE'],
    parse: upperChoice(['P1', 'P2', 'P3', 'P4', 'P5']),
  },
  {
    field: 'botToken',
    flags: '--bot-token <token>',
    attr: 'botToken',
    help: secretHelp('the bot token BotFather gave'),
    types: ['TELEGRAM'],
    read: readSecret,
  },
  {
    field: 'chatId',
    flags: '--chat-id <id>',
    attr: 'chatId',
    help: 'a numeric chat id or an @channel name',
    types: ['TELEGRAM'],
  },
];

/** Adds every type's config flags; on update also the `--no-…` flags that clear optional fields. */
export function addConfigFlags(command: Command, mode: 'create' | 'update'): Command {
  for (const flag of FLAGS) {
    const group = groupOf(flag.types[0]!, mode);
    const option = new Option(flag.flags, flag.help).helpGroup(group);
    if (flag.parse) option.argParser(flag.parse);
    command.addOption(option);
    if (mode === 'update' && flag.clears)
      command.addOption(new Option(flag.clears, `clear ${flag.field}`).helpGroup(group));
  }
  return command;
}

/** The send flags; create takes only the ones that change a default, update both forms. */
export function addSendFlags(command: Command, mode: 'create' | 'update'): Command {
  const pairsOf: Array<[string, string]> = [
    ['send-failure', 'failure alerts'],
    ['send-recovery', 'recovery alerts'],
    ['send-degraded', 'degraded alerts'],
    ['ssl-expiry', 'certificate expiry alerts'],
  ];
  for (const [name, what] of pairsOf) {
    const onByDefault = name === 'send-failure' || name === 'send-recovery';
    if (mode === 'update' || !onByDefault) command.option(`--${name}`, `send ${what}`);
    if (mode === 'update' || onByDefault) command.option(`--no-${name}`, `do not send ${what}`);
  }
  return command.option('--ssl-threshold <days>', 'days before expiry to alert (1-30)', integer(1, 30));
}

/**
 * The channel-level fields the send flags set. On create, commander defaults a lone --no-… flag
 * to true: only false is a choice the user made (true would override --data for nothing).
 */
export function sendFields(options: Record<string, unknown>, mode: 'create' | 'update'): Record<string, unknown> {
  const off = (value: unknown) => (mode === 'create' && value === true ? undefined : value);
  const fields: Record<string, unknown> = {
    sendFailure: off(options.sendFailure),
    sendRecovery: off(options.sendRecovery),
    sendDegraded: options.sendDegraded,
    sslExpiry: options.sslExpiry,
    sslExpiryThreshold: options.sslThreshold,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/**
 * The config fields the flags give for a channel of this type. Only flags that were given are
 * returned, so they override --data (create) or the stored channel (update); `--no-…` is null.
 */
export async function configFromFlags(
  type: ChannelType,
  options: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const given = FLAGS.filter((flag) => options[flag.attr] !== undefined);
  const foreign = given.filter((flag) => !flag.types.includes(type));
  if (foreign.length > 0) {
    const own = FLAGS.filter((flag) => flag.types.includes(type)).map((flag) => flag.flags.split(' ')[0]);
    throw new UsageError(
      `${foreign.map((flag) => flag.flags.split(' ')[0]).join(', ')} ${foreign.length === 1 ? 'does' : 'do'} not apply to ${type} channels` +
        (own.length > 0 ? `; their options are ${own.join(', ')}` : ''),
    );
  }
  const config: Record<string, unknown> = {};
  for (const flag of given) {
    const value = options[flag.attr];
    if (value === false) config[flag.field] = null;
    else config[flag.field] = flag.read && typeof value === 'string' ? await flag.read(value) : value;
  }
  return config;
}

/** The flags that set a config field, for messages: `--url`, `--service-key`. */
export function flagOf(field: string): string {
  if (field === 'name') return '--name';
  return FLAGS.find((flag) => flag.field === field)?.flags.split(' ')[0] ?? `config.${field}`;
}

/** The secret's flag for this type, if it has a secret. */
export function secretFlagOf(type: ChannelType): string | undefined {
  const secret = CHANNEL_SPECS[type].secret;
  return secret ? flagOf(secret.field) : undefined;
}
