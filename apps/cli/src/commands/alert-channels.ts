import { Option, type Command } from 'commander';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { contextOf } from '../context.ts';
import { CliError, UsageError } from '../errors.ts';
import { defined, integer, pairs, readJsonObject, readText } from '../input.ts';
import { example, pageOptions, type PageOptions } from '../kit.ts';
import { fetchList } from '../paging.ts';
import { registerChannelManagement } from './alert-channels-manage.ts';
import { alertChannelSchema, DELIVERY_OUTCOMES, deliverySchema, testMessageSchema, type Delivery } from '../schemas.ts';

type Channel = z.infer<typeof alertChannelSchema> & Record<string, unknown>;
const path = (id: string) => `/v1/alert-channels/${encodeURIComponent(id)}`;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'HEAD', 'DELETE'];

interface CreateOptions {
  name?: string;
  url?: string;
  method?: string;
  header?: Array<{ key: string; value: string }>;
  query?: Array<{ key: string; value: string }>;
  template?: string;
  secret?: string;
  sendFailure?: boolean;
  sendRecovery?: boolean;
  sendDegraded?: boolean;
  sslExpiry?: boolean;
  sslThreshold?: number;
  data?: string;
}

export function registerAlertChannels(program: Command): void {
  const channels = program.command('alert-channels').description('webhook alert channels');
  example(
    channels,
    'vigil alert-channels create --name Ops --url https://hooks.example.com/vigil',
    'vigil alert-channels test <channelId>',
  );

  const ls = pageOptions(channels.command('ls').description('list alert channels')).action(
    async (options: PageOptions, command: Command) => {
      const ctx = contextOf(command);
      const list = (await fetchList(ctx.client(), '/v1/alert-channels', alertChannelSchema, options)) as Channel[];
      ctx.out.result(list, () =>
        ctx.out.table(list, [
          { header: 'ID', value: (c) => c.id },
          { header: 'NAME', value: (c) => c.config.name },
          { header: 'TYPE', value: (c) => c.type },
          { header: 'METHOD', value: (c) => c.config.method },
          { header: 'URL', value: (c) => c.config.url },
          { header: 'SENDS', value: (c) => sends(c) },
        ]),
      );
    },
  );
  example(ls, 'vigil alert-channels ls');

  const get = channels
    .command('get')
    .description('show one alert channel (the webhook secret stays masked)')
    .argument('<channelId>', 'channel id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const channel = (await ctx.client().get(alertChannelSchema, path(id))) as Channel;
      ctx.out.result(channel, () => {
        const { config, ...rest } = channel;
        ctx.out.record([
          ...Object.entries(rest),
          ...Object.entries(config).map(([key, value]): [string, unknown] => [`config.${key}`, value]),
        ]);
      });
    });
  example(get, 'vigil alert-channels get 7e2f…');

  const create = channels
    .command('create')
    .description('create a webhook channel; flags override the fields of --data')
    .option('--name <name>', 'channel name')
    .option('--url <url>', 'where to deliver; may be a template, e.g. {{BASE_URL}}/hook')
    .addOption(new Option('--method <method>', 'HTTP method (default POST)').choices(METHODS))
    .option('--header <Name:value>', 'a request header; repeat for more', pairs(':'))
    .option('--query <name=value>', 'a query parameter; repeat for more', pairs('='))
    .option('--template <body>', 'body template (Handlebars), or @file')
    .option('--secret <secret>', 'sign deliveries with HMAC-SHA256 (a whsec_… secret adds Standard Webhooks headers)')
    .option('--no-send-failure', 'do not send failure alerts')
    .option('--no-send-recovery', 'do not send recovery alerts')
    .option('--send-degraded', 'also send degraded alerts')
    .option('--ssl-expiry', 'send certificate expiry alerts')
    .option('--ssl-threshold <days>', 'days before expiry to alert (1-30)', integer(1, 30))
    .option('--data <json>', 'the whole body as JSON, @file or - (standard input)')
    .action(async (options: CreateOptions, command: Command) => {
      const ctx = contextOf(command);
      const base = await readJsonObject(options.data);
      const baseConfig =
        typeof base.config === 'object' && base.config !== null ? (base.config as Record<string, unknown>) : {};
      const config = {
        ...baseConfig,
        ...defined({
          name: options.name,
          url: options.url,
          method: options.method,
          headers: options.header,
          queryParameters: options.query,
          template: options.template === undefined ? undefined : await readText(options.template),
          webhookSecret: options.secret,
        }),
      };
      if (config.name === undefined || config.url === undefined)
        throw new UsageError('A channel needs --name and --url (or both in --data)');
      const body = {
        type: 'WEBHOOK',
        ...base,
        config,
        ...defined({
          sendFailure: options.sendFailure === false ? false : undefined,
          sendRecovery: options.sendRecovery === false ? false : undefined,
          sendDegraded: options.sendDegraded,
          sslExpiry: options.sslExpiry,
          sslExpiryThreshold: options.sslThreshold,
        }),
      };
      const created = (await ctx.client().json(alertChannelSchema, 'POST', '/v1/alert-channels', { body })) as Channel;
      ctx.out.result(created, () => ctx.out.print(`Created alert channel ${created.config.name}: ${created.id}`));
      const local = privateTarget(created.config.url);
      if (local)
        ctx.out.warn(
          `${local} is a private address: deliveries are refused unless the server runs with VIGIL_WEBHOOK_ALLOW_PRIVATE=true`,
        );
    });
  example(
    create,
    'vigil alert-channels create --name Ops --url https://hooks.example.com/vigil --secret whsec_… --send-degraded',
    'vigil alert-channels create --name Slack --url https://hooks.slack.com/services/… --template \'{"text":"{{ALERT_TITLE}}"}\'',
  );

  const test = channels
    .command('test')
    .description(
      "send a sample ALERT_FAILURE to the channel now and show the receiver's answer (exit 1 unless it was delivered)",
    )
    .argument('<channelId>', 'channel id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx.client().json(testMessageSchema, 'POST', `${path(id)}/test`);
      ctx.out.result(answer, () =>
        ctx.out.record([
          ['Outcome', answer.outcome],
          ['Status', answer.statusCode],
          ['Duration', `${answer.durationMs} ms`],
          ['Error', answer.error],
          ['URL', answer.request.url],
          ['Response', answer.responseBody.slice(0, 500)],
        ]),
      );
      // The API call worked, but a receiver that refused the message is a failure worth an exit code.
      if (answer.outcome !== 'delivered') {
        const why = answer.statusCode !== null ? `HTTP ${answer.statusCode}` : (answer.error ?? 'no answer');
        const prefix = why.startsWith(`${answer.outcome}:`) ? '' : `${answer.outcome}: `;
        throw new CliError(`The test message was not delivered (${prefix}${why})`);
      }
    });
  example(test, 'vigil alert-channels test 7e2f…');

  const deliveries = pageOptions(
    channels
      .command('deliveries')
      .description(
        'the delivery log of a channel, newest first: one line per attempt, and whether (and when) a failed one is retried (default: the last 20)',
      )
      .argument('<channelId>', 'channel id')
      .addOption(new Option('--outcome <outcome>', 'only attempts with this outcome').choices(DELIVERY_OUTCOMES)),
  ).action(async (id: string, options: PageOptions & { outcome?: string }, command: Command) => {
    const ctx = contextOf(command);
    const list = await ctx.client().get(z.array(deliverySchema), `${path(id)}/deliveries`, {
      limit: options.limit ?? 20,
      page: options.page,
      outcome: options.outcome,
    });
    ctx.out.result(list, () =>
      ctx.out.table<Delivery>(list, [
        { header: 'AT', value: (d) => d.at },
        { header: 'DELIVERY', value: (d) => d.deliveryId },
        { header: 'ALERT', value: (d) => (d.test ? `${d.alertType} (test)` : d.alertType) },
        { header: 'ATTEMPT', value: (d) => d.attempt },
        { header: 'OUTCOME', value: (d) => d.outcome },
        { header: 'STATUS', value: (d) => d.statusCode },
        { header: 'MS', value: (d) => d.durationMs },
        { header: 'RETRY', value: retry },
        { header: 'ERROR', value: (d) => d.error },
      ]),
    );
  });
  example(
    deliveries,
    'vigil alert-channels deliveries 7e2f… --limit 50',
    'vigil alert-channels deliveries 7e2f… --outcome failed --json',
  );
  registerChannelManagement(channels);
}

/** Whether another attempt follows a failed one, and when it is (or was) due. */
export function retry(delivery: Delivery): string | null {
  if (delivery.outcome === 'delivered' || delivery.willRetry === undefined) return null;
  if (!delivery.willRetry) return 'no';
  return delivery.nextAttemptAt ? `yes, ${delivery.nextAttemptAt}` : 'yes';
}

function sends(channel: Channel): string {
  const flags: Array<[string, unknown]> = [
    ['failure', channel.sendFailure],
    ['recovery', channel.sendRecovery],
    ['degraded', channel.sendDegraded],
    ['ssl', channel.sslExpiry],
  ];
  return flags
    .filter(([, on]) => on === true)
    .map(([name]) => name)
    .join(', ');
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
