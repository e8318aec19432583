import { Option, type Command } from 'commander';
import { z } from 'zod';
import { isChannelType, knownConfig } from '../channel-types.ts';
import { contextOf } from '../context.ts';
import { CliError, UsageError } from '../errors.ts';
import { defined } from '../input.ts';
import { example } from '../kit.ts';
import { alertChannelSchema } from '../schemas.ts';
import { addConfigFlags, addSendFlags, configFromFlags, sendFields } from './channel-options.ts';

const path = (id: string) => `/v1/alert-channels/${encodeURIComponent(id)}`;
const ALERT_TYPES = ['ALERT_FAILURE', 'ALERT_RECOVERY', 'ALERT_DEGRADED', 'ALERT_SSL'];
// The channel-level fields PUT /v1/alert-channels/{id} takes; the config's are per type (channel-types.ts).
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
    .description(
      "change some fields of a channel; the others keep their values, and so does the secret unless given (the type's own flags only)",
    )
    .argument('<channelId>', 'channel id')
    .addOption(new Option('--name <name>', 'channel name').helpGroup('Channel options:'));
  addConfigFlags(update, 'update');
  addSendFlags(update, 'update').action(async (id: string, options: Record<string, unknown>, cmd: Command) => {
    const ctx = contextOf(cmd);
    const client = ctx.client();
    const current = await client.get(alertChannelSchema, path(id));
    const type = current.type;
    if (!isChannelType(type)) throw new CliError(`This vigil does not know ${type} channels: update it with vigil api`);
    // The stored fields less the secret: left out of a PUT, the stored secret stays.
    const config: Record<string, unknown> = {
      name: current.config.name,
      ...knownConfig(type, current.config),
      ...(await configFromFlags(type, options)),
      ...defined({ name: options.name }),
    };
    const body: Record<string, unknown> = { type, config };
    for (const field of CHANNEL_FIELDS) if (current[field] !== undefined) body[field] = current[field];
    Object.assign(body, sendFields(options, 'update'));
    const updated = await client.json(alertChannelSchema, 'PUT', path(id), { body });
    ctx.out.result(updated, () => ctx.out.print(`Updated alert channel ${updated.config.name}: ${updated.id}`));
  });
  example(
    update,
    'vigil alert-channels update 7e2f… --url https://hooks.example.com/v2 --send-degraded',
    'vigil alert-channels update 7e2f… --service-key @new-routing-key.txt',
    'vigil alert-channels update 7e2f… --priority P1 --no-send-recovery',
  );

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
    .description("render a webhook channel's request for an alert type without sending it")
    .argument('<channelId>', 'channel id')
    .addOption(new Option('--alert-type <type>', 'the alert to render').choices(ALERT_TYPES).default('ALERT_FAILURE'))
    .option('--check <checkId>', 'render with this check (default: a sample check)')
    .action(async (id: string, options: { alertType: string; check?: string }, cmd: Command) => {
      const ctx = contextOf(cmd);
      const client = ctx.client();
      const current = await client.get(alertChannelSchema, path(id));
      // The other types have no template: their messages are the services' own formats.
      if (current.type !== 'WEBHOOK')
        throw new UsageError(
          `preview renders webhook templates; ${current.type} channels have none. Send a sample instead: vigil alert-channels test ${id}`,
        );
      const config = { name: current.config.name, ...knownConfig('WEBHOOK', current.config) };
      const rendered = await client.json(previewSchema, 'POST', '/v1/alert-channels/preview', {
        // channelId: the stored secret signs the preview, so the signature headers show as sent.
        body: { config, alertType: options.alertType, channelId: id, ...defined({ checkId: options.check }) },
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
