import { Option, type Command } from 'commander';
import ipaddr from 'ipaddr.js';
import { CHANNEL_TYPES, channelTypeOf, requiredFields, urlOf, type ChannelType } from '../channel-types.ts';
import { contextOf } from '../context.ts';
import { UsageError } from '../errors.ts';
import { readJsonObject } from '../input.ts';
import { example } from '../kit.ts';
import { alertChannelSchema } from '../schemas.ts';
import {
  addConfigFlags,
  addSendFlags,
  configFromFlags,
  flagOf,
  parseChannelType,
  sendFields,
} from './channel-options.ts';

type Plain = Record<string, unknown>;

/** `alert-channels create`: any type, from flags, --data, or both (flags win). */
export function registerCreate(channels: Command): void {
  const create = channels
    .command('create')
    .description('create an alert channel of any type; flags override the fields of --data')
    .addOption(
      new Option('--type <type>', `${CHANNEL_TYPES.map((t) => t.toLowerCase()).join(', ')} (default: webhook)`)
        .argParser(parseChannelType)
        .helpGroup('Channel options:'),
    )
    .addOption(new Option('--name <name>', 'channel name').helpGroup('Channel options:'));
  addConfigFlags(create, 'create');
  addSendFlags(create, 'create')
    .option('--data <json>', 'the whole body as JSON, @file or - (standard input)')
    .action(async (options: Plain & { type?: ChannelType; data?: string }, command: Command) => {
      const ctx = contextOf(command);
      const base = await readJsonObject(options.data);
      const type = options.type ?? typeFromData(base.type);
      const baseConfig = typeof base.config === 'object' && base.config !== null ? (base.config as Plain) : {};
      const config: Plain = { ...baseConfig, ...(await configFromFlags(type, options)) };
      if (typeof options.name === 'string') config.name = options.name;
      const missing = ['name', ...requiredFields(type)].filter((field) => config[field] === undefined);
      if (missing.length > 0) {
        throw new UsageError(
          `${type} channels need ${missing.map(flagOf).join(' and ')} (or ${missing.join(', ')} in --data's config)`,
        );
      }
      const body = { ...base, type, config, ...sendFields(options, 'create') };
      const created = await ctx.client().json(alertChannelSchema, 'POST', '/v1/alert-channels', { body });
      ctx.out.result(created, () => ctx.out.print(`Created alert channel ${created.config.name}: ${created.id}`));
      const url = urlOf(type, config);
      const local = url === undefined ? undefined : privateTarget(url);
      if (local)
        ctx.out.warn(
          `${local} is a private address: deliveries are refused unless the server runs with VIGIL_ALLOW_PRIVATE_TARGETS=true`,
        );
    });
  example(
    create,
    'vigil alert-channels create --name Ops --url https://hooks.example.com/vigil --secret whsec_… --send-degraded',
    'vigil alert-channels create --type email --name On-call --address oncall@example.com',
    'vigil alert-channels create --type slack --name Team --url https://hooks.slack.com/services/… --channel #alerts',
    'vigil alert-channels create --type pagerduty --name Pager --service-key @routing-key.txt --service-name Checkout',
    'vigil alert-channels create --type opsgenie --name Genie --api-key - --region EU --priority P2 < genie-key.txt',
    'vigil alert-channels create --type msteams --name Teams --url https://example.webhook.office.com/…',
    'vigil alert-channels create --type telegram --name Bot --bot-token @bot-token.txt --chat-id -1001234567890',
  );
}

function typeFromData(raw: unknown): ChannelType {
  if (raw === undefined) return 'WEBHOOK';
  const type = channelTypeOf(raw);
  if (!type) throw new UsageError(`--data: type ${JSON.stringify(raw)} is not one of ${CHANNEL_TYPES.join(', ')}`);
  return type;
}

/** The host of a URL when it is loopback, private or link-local (what the default policy refuses). */
function privateTarget(url: string): string | undefined {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined; // a template such as {{BASE_URL}}/hook: resolved only at delivery
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return host;
  if (!ipaddr.isValid(host)) return undefined;
  return ipaddr.parse(host).range() === 'unicast' ? undefined : host;
}
