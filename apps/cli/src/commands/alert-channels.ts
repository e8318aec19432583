import { Option, type Command } from 'commander';
import { z } from 'zod';
import { CHANNEL_SPECS, CHANNEL_TYPES, isChannelType } from '../channel-types.ts';
import { contextOf } from '../context.ts';
import { CliError } from '../errors.ts';
import { example, pageOptions, type PageOptions } from '../kit.ts';
import { fetchList } from '../paging.ts';
import { registerCreate } from './alert-channel-create.ts';
import { registerChannelManagement } from './alert-channels-manage.ts';
import { alertChannelSchema, DELIVERY_OUTCOMES, deliverySchema, testMessageSchema, type Delivery } from '../schemas.ts';

type Channel = z.infer<typeof alertChannelSchema> & Record<string, unknown>;
const path = (id: string) => `/v1/alert-channels/${encodeURIComponent(id)}`;

export function registerAlertChannels(program: Command): void {
  const channels = program
    .command('alert-channels')
    .description(`alert channels: ${CHANNEL_TYPES.map((type) => type.toLowerCase()).join(', ')}`);
  example(
    channels,
    'vigil alert-channels create --name Ops --url https://hooks.example.com/vigil',
    'vigil alert-channels create --type slack --name Team --url https://hooks.slack.com/services/… --channel #alerts',
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
          { header: 'TARGET', value: (c) => targetOf(c) },
          { header: 'SENDS', value: (c) => sends(c) },
        ]),
      );
    },
  );
  example(ls, 'vigil alert-channels ls');

  const get = channels
    .command('get')
    .description('show one alert channel (its secret, if it has one, reads ********)')
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

  registerCreate(channels);

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

/** Where the channel's alerts go, in its type's terms; a type this CLI does not know shows its type only. */
function targetOf(channel: Channel): string {
  return isChannelType(channel.type) ? CHANNEL_SPECS[channel.type].target(channel.config) : '';
}
