import { Option, type Command } from 'commander';
import { z } from 'zod';
import { contextOf } from '../context.ts';
import { UsageError } from '../errors.ts';
import { defined, integer, pairs, readText } from '../input.ts';
import { example } from '../kit.ts';
import { alertChannelSchema } from '../schemas.ts';

const path = (id: string) => `/v1/alert-channels/${encodeURIComponent(id)}`;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'HEAD', 'DELETE'];
const ALERT_TYPES = ['ALERT_FAILURE', 'ALERT_RECOVERY', 'ALERT_DEGRADED', 'ALERT_SSL'];
// The fields PUT /v1/alert-channels/{id} takes; everything else a GET shows is read-only.
const CONFIG_FIELDS = ['name', 'url', 'method', 'headers', 'queryParameters', 'template'] as const;
const CHANNEL_FIELDS = ['sendFailure', 'sendRecovery', 'sendDegraded', 'sslExpiry', 'sslExpiryThreshold'] as const;

const previewSchema = z.looseObject({
  url: z.string(),
  method: z.string(),
  headers: z.record(z.string(), z.string()),
  body: z.string(),
});

interface Target {
  check?: string;
  group?: string;
}

function target(options: Target): { checkId: string } | { groupId: string } {
  if ((options.check === undefined) === (options.group === undefined))
    throw new UsageError('Name exactly one of --check <checkId> or --group <groupId>');
  return options.check !== undefined ? { checkId: options.check } : { groupId: options.group! };
}

/** subscribe, unsubscribe, update, delete, preview and retry: the channel's life after create. */
export function registerChannelManagement(channels: Command): void {
  for (const [name, activated] of [
    ['subscribe', true],
    ['unsubscribe', false],
  ] as const) {
    const command = channels
      .command(name)
      .description(
        activated
          ? 'send this channel the alerts of a check, or of every check in a group'
          : 'stop sending this channel the alerts of a check or a group',
      )
      .argument('<channelId>', 'channel id')
      .option('--check <checkId>', 'the check')
      .option('--group <groupId>', 'the check group')
      .action(async (id: string, options: Target, cmd: Command) => {
        const ctx = contextOf(cmd);
        const body = { ...target(options), activated };
        const channel = await ctx.client().json(alertChannelSchema, 'PUT', `${path(id)}/subscriptions`, { body });
        const what = 'checkId' in body ? `check ${body.checkId}` : `group ${body.groupId}`;
        ctx.out.result(channel, () =>
          ctx.out.print(
            `${activated ? 'Subscribed' : 'Unsubscribed'} ${channel.config.name} ${activated ? 'to' : 'from'} ${what}`,
          ),
        );
      });
    example(
      command,
      `vigil alert-channels ${name} 7e2f… --check 0b8c…`,
      `vigil alert-channels ${name} 7e2f… --group 3a1d…`,
    );
  }

  const update = channels
    .command('update')
    .description('change some fields of a channel; the others keep their values (the secret too, unless given)')
    .argument('<channelId>', 'channel id')
    .option('--name <name>', 'channel name')
    .option('--url <url>', 'where to deliver; may be a template')
    .addOption(new Option('--method <method>', 'HTTP method').choices(METHODS))
    .option('--header <Name:value>', 'a request header (replaces all headers); repeat for more', pairs(':'))
    .option('--query <name=value>', 'a query parameter (replaces all); repeat for more', pairs('='))
    .option('--template <body>', 'body template (Handlebars), or @file')
    .option('--secret <secret>', 'a new signing secret')
    .option('--no-secret', 'stop signing deliveries')
    .option('--send-failure', 'send failure alerts')
    .option('--no-send-failure', 'do not send failure alerts')
    .option('--send-recovery', 'send recovery alerts')
    .option('--no-send-recovery', 'do not send recovery alerts')
    .option('--send-degraded', 'send degraded alerts')
    .option('--no-send-degraded', 'do not send degraded alerts')
    .option('--ssl-expiry', 'send certificate expiry alerts')
    .option('--no-ssl-expiry', 'do not send certificate expiry alerts')
    .option('--ssl-threshold <days>', 'days before expiry to alert (1-30)', integer(1, 30))
    .action(async (id: string, options: Record<string, unknown>, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = ctx.client();
      const current = await client.get(alertChannelSchema, path(id));
      const config: Record<string, unknown> = {};
      for (const field of CONFIG_FIELDS) if (current.config[field] !== undefined) config[field] = current.config[field];
      Object.assign(
        config,
        defined({
          name: options.name,
          url: options.url,
          method: options.method,
          headers: options.header,
          queryParameters: options.query,
          template: typeof options.template === 'string' ? await readText(options.template) : undefined,
          // Left out, the stored secret stays; false (--no-secret) clears it.
          webhookSecret: options.secret === false ? null : options.secret,
        }),
      );
      const body: Record<string, unknown> = { type: current.type, config };
      for (const field of CHANNEL_FIELDS) if (current[field] !== undefined) body[field] = current[field];
      Object.assign(
        body,
        defined({
          sendFailure: options.sendFailure,
          sendRecovery: options.sendRecovery,
          sendDegraded: options.sendDegraded,
          sslExpiry: options.sslExpiry,
          sslExpiryThreshold: options.sslThreshold,
        }),
      );
      const updated = await client.json(alertChannelSchema, 'PUT', path(id), { body });
      ctx.out.result(updated, () => ctx.out.print(`Updated alert channel ${updated.config.name}: ${updated.id}`));
    });
  example(update, 'vigil alert-channels update 7e2f… --url https://hooks.example.com/v2 --send-degraded');

  const remove = channels
    .command('delete')
    .alias('rm')
    .description('delete a channel')
    .argument('<channelId>', 'channel id')
    .action(async (id: string, _options: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      await ctx.client().send('DELETE', path(id));
      ctx.out.result({ deleted: id }, () => ctx.out.print(`Deleted alert channel ${id}`));
    });
  example(remove, 'vigil alert-channels delete 7e2f…');

  const preview = channels
    .command('preview')
    .description("render a channel's request for an alert type without sending it")
    .argument('<channelId>', 'channel id')
    .addOption(new Option('--alert-type <type>', 'the alert to render').choices(ALERT_TYPES).default('ALERT_FAILURE'))
    .option('--check <checkId>', 'render with this check (default: a sample check)')
    .action(async (id: string, options: { alertType: string; check?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = ctx.client();
      const current = await client.get(alertChannelSchema, path(id));
      const config: Record<string, unknown> = {};
      for (const field of CONFIG_FIELDS) if (current.config[field] !== undefined) config[field] = current.config[field];
      const rendered = await client.json(previewSchema, 'POST', '/v1/alert-channels/preview', {
        body: { config, alertType: options.alertType, ...defined({ checkId: options.check }) },
      });
      ctx.out.result(rendered, () => {
        ctx.out.print(`${rendered.method} ${rendered.url}`);
        for (const [name, value] of Object.entries(rendered.headers)) ctx.out.print(`${name}: ${value}`);
        ctx.out.print('');
        ctx.out.print(rendered.body);
        const warnings = (rendered as { warnings?: unknown }).warnings;
        if (Array.isArray(warnings)) for (const warning of warnings) ctx.out.warn(String(warning));
      });
    });
  example(preview, 'vigil alert-channels preview 7e2f… --alert-type ALERT_RECOVERY');

  const retry = channels
    .command('retry')
    .description('replay a delivery now, with the same delivery id (see the DELIVERY column of deliveries)')
    .argument('<channelId>', 'channel id')
    .argument('<deliveryId>', 'delivery id')
    .action(async (id: string, deliveryId: string, _options: unknown, cmd: Command) => {
      const ctx = contextOf(cmd);
      const answer = await ctx
        .client()
        .json(
          z.looseObject({ id: z.string(), status: z.string() }),
          'POST',
          `${path(id)}/deliveries/${encodeURIComponent(deliveryId)}/retry`,
        );
      ctx.out.result(answer, () =>
        ctx.out.print(`Delivery ${answer.id} queued for another attempt (see: vigil alert-channels deliveries ${id})`),
      );
    });
  example(retry, 'vigil alert-channels retry 7e2f… 5d0a…');
}
