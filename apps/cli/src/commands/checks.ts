import { Option, type Command } from 'commander';
import type { z } from 'zod';
import { contextOf } from '../context.ts';
import { UsageError } from '../errors.ts';
import { collect, defined, integer, readJsonObject } from '../input.ts';
import { example, pageOptions, type PageOptions } from '../kit.ts';
import { fetchList } from '../paging.ts';
import { checkSchema } from '../schemas.ts';
import { scheduleOf } from '../schedule.ts';
import { describeScript } from '../script-files.ts';
import { registerCheckManagement } from './checks-manage.ts';
import { definitionFromOptions, definitionOptions, registerCheckRuns, type DefinitionOptions } from './checks-run.ts';

export const CHECK_TYPES = ['API', 'BROWSER', 'HEARTBEAT', 'MULTI_STEP', 'TCP', 'PLAYWRIGHT', 'URL', 'DNS'] as const;
const FREQUENCIES = ['1', '2', '5', '10', '15', '30', '60', '120', '180', '360', '720', '1440'];

type Check = z.infer<typeof checkSchema> & Record<string, unknown>;
const path = (id: string) => `/v1/checks/${encodeURIComponent(id)}`;

/** A script or test project is summed up in the table; --json prints it whole. */
function brief(key: string, value: unknown): unknown {
  if (key === 'script' && typeof value === 'string') return `${describeScript(value)} (--json shows it)`;
  if (key === 'files' && Array.isArray(value))
    return (value as Array<{ path?: string }>).map((file) => file.path).join(', ');
  return value;
}

interface CreateOptions extends DefinitionOptions {
  name?: string;
  type?: string;
  frequency?: string;
  tag?: string[];
  location?: string[];
  group?: string;
  activated?: boolean;
  muted?: boolean;
  degradedMs?: number;
  maxMs?: number;
  sslDomain?: string;
  runtime?: string;
  data?: string;
}

export function registerChecks(program: Command): void {
  const checks = program.command('checks').description('monitoring checks');
  example(checks, 'vigil checks ls', 'vigil checks create --name Homepage --type URL --frequency 5');

  const ls = pageOptions(
    checks
      .command('ls')
      .description('list checks')
      .addOption(new Option('--type <type>', 'only checks of this type').choices(CHECK_TYPES))
      .option('--tag <tag>', 'only checks with this tag'),
  ).action(async (options: PageOptions & { type?: string; tag?: string }, command: Command) => {
    const ctx = contextOf(command);
    const list = await fetchList(ctx.client(), '/v1/checks', checkSchema, options, {
      checkType: options.type,
      tag: options.tag,
    });
    ctx.out.result(list, () =>
      ctx.out.table(list as Check[], [
        { header: 'ID', value: (c) => c.id },
        { header: 'NAME', value: (c) => c.name },
        { header: 'TYPE', value: (c) => c.checkType },
        { header: 'EVERY', value: (c) => scheduleOf(c)?.replace(/^every /, '') },
        { header: 'ACTIVE', value: (c) => (c.activated === false ? 'no' : 'yes') },
        { header: 'MUTED', value: (c) => (c.muted === true ? 'yes' : 'no') },
        { header: 'TAGS', value: (c) => c.tags },
      ]),
    );
  });
  example(ls, 'vigil checks ls --type API --tag production');

  const get = checks
    .command('get')
    .description('show one check')
    .argument('<checkId>', 'check id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const check = (await ctx.client().get(checkSchema, path(id))) as Check;
      ctx.out.result(check, () =>
        ctx.out.record(
          // `frequency` reads as the schedule: a heartbeat's 10 is a default it never runs on.
          Object.entries(check).map(([key, value]) => [
            key,
            key === 'frequency' ? scheduleOf(check) : brief(key, value),
          ]),
        ),
      );
    });
  example(get, 'vigil checks get 0b8c…');

  const create = definitionOptions(checks.command('create'))
    .description('create a check; flags override the fields of --data')
    .option('--name <name>', 'check name')
    .addOption(new Option('--type <type>', 'check type').choices(CHECK_TYPES))
    .addOption(new Option('--frequency <minutes>', 'run every n minutes').choices(FREQUENCIES))
    .option('--tag <tag>', 'a tag; repeat or separate with commas', collect)
    .option('--location <location>', 'a run location; repeat or separate with commas', collect)
    .option('--group <groupId>', 'the check group it belongs to')
    .option('--no-activated', 'create it deactivated')
    .option('--muted', 'create it muted: no alerts')
    .option('--degraded-ms <ms>', 'degraded above this response time', integer(0, 240_000))
    .option(
      '--max-ms <ms>',
      'failed above this response time (a script check: its time budget, up to 240000)',
      integer(0, 240_000),
    )
    .option('--ssl-domain <domain>', 'domain whose certificate to watch')
    .option('--runtime <runtimeId>', 'runtime, YYYY.MM')
    .option('--data <json>', 'the whole body as JSON, @file or - (standard input)')
    .action(async (options: CreateOptions, command: Command) => {
      const ctx = contextOf(command);
      const data = await readJsonObject(options.data);
      const body = {
        ...data,
        ...definitionFromOptions(options.type ?? data.checkType, options),
        ...defined({
          name: options.name,
          checkType: options.type,
          frequency: options.frequency === undefined ? undefined : Number(options.frequency),
          tags: options.tag,
          locations: options.location,
          groupId: options.group,
          activated: options.activated === false ? false : undefined,
          muted: options.muted,
          degradedResponseTime: options.degradedMs,
          maxResponseTime: options.maxMs,
          sslCheckDomain: options.sslDomain,
          runtimeId: options.runtime,
        }),
      };
      if (body.name === undefined || body.checkType === undefined)
        throw new UsageError('A check needs --name and --type (or both in --data)');
      const created = (await ctx.client().json(checkSchema, 'POST', '/v1/checks', { body })) as Check;
      ctx.out.result(created, () => {
        ctx.out.print(`Created ${created.checkType} check ${created.name}: ${created.id}`);
        const pingUrl = (created.heartbeat as { pingUrl?: string } | undefined)?.pingUrl;
        if (pingUrl) ctx.out.print(`Ping URL (call it from your job): ${pingUrl}`);
      });
    });
  example(
    create,
    'vigil checks create --name "Login API" --type API --frequency 1 --tag prod --location eu-west-1,us-east-1',
    'vigil checks create --name "Orders API" --type API --frequency 1 --url https://example.com/api/orders --assert "STATUS_CODE EQUALS 200"',
    'vigil checks create --name "Nightly backup" --type HEARTBEAT --heartbeat-period 1d --heartbeat-grace 30m',
    'vigil checks create --name "Login flow" --type MULTI_STEP --script checks/login.spec.ts --frequency 5',
    'vigil checks create --name "Shop suite" --type PLAYWRIGHT --files checks/shop --runtime 2025.04',
    'vigil checks create --data @check.json',
  );
  registerCheckRuns(checks, program);
  registerCheckManagement(checks);

  const rm = checks
    .command('rm')
    .description('delete a check')
    .argument('<checkId>', 'check id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      await ctx.client().send('DELETE', path(id));
      ctx.out.result({ deleted: id }, () => ctx.out.print(`Deleted check ${id}`));
    });
  example(rm, 'vigil checks rm 0b8c…');
}
