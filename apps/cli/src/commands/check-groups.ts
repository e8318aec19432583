import type { Command } from 'commander';
import type { z } from 'zod';
import { contextOf } from '../context.ts';
import { UsageError } from '../errors.ts';
import { collect, defined, pairs, readJsonObject } from '../input.ts';
import { example, pageOptions, type PageOptions } from '../kit.ts';
import { fetchList } from '../paging.ts';
import { checkGroupSchema } from '../schemas.ts';

type Group = z.infer<typeof checkGroupSchema> & Record<string, unknown>;
const path = (id: string) => `/v1/check-groups/${encodeURIComponent(id)}`;

export function registerCheckGroups(program: Command): void {
  const groups = program.command('check-groups').description('check groups: shared tags, runtime and variables');
  example(
    groups,
    'vigil check-groups ls',
    'vigil check-groups create --name Checkout --var BASE_URL=https://shop.example.com',
  );

  const ls = pageOptions(groups.command('ls').description('list check groups')).action(
    async (options: PageOptions, command: Command) => {
      const ctx = contextOf(command);
      const list = (await fetchList(ctx.client(), '/v1/check-groups', checkGroupSchema, options)) as Group[];
      ctx.out.result(list, () =>
        ctx.out.table(list, [
          { header: 'ID', value: (g) => g.id },
          { header: 'NAME', value: (g) => g.name },
          { header: 'RUNTIME', value: (g) => g.runtimeId },
          { header: 'TAGS', value: (g) => g.tags },
          {
            header: 'VARIABLES',
            value: (g) => (Array.isArray(g.environmentVariables) ? g.environmentVariables.length : null),
          },
        ]),
      );
    },
  );
  example(ls, 'vigil check-groups ls');

  const get = groups
    .command('get')
    .description('show one check group')
    .argument('<groupId>', 'group id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const group = (await ctx.client().get(checkGroupSchema, path(id))) as Group;
      ctx.out.result(group, () => ctx.out.record(Object.entries(group)));
    });
  example(get, 'vigil check-groups get 4a1d…');

  const create = groups
    .command('create')
    .description('create a check group; flags override the fields of --data')
    .option('--name <name>', 'group name')
    .option('--tag <tag>', 'a tag; repeat or separate with commas', collect)
    .option('--runtime <runtimeId>', 'runtime for its checks, YYYY.MM')
    .option('--var <KEY=value>', 'a group variable; repeat for more', pairs('='))
    .option('--locked-var <KEY=value>', 'a group variable hidden from non-admins', pairs('='))
    .option('--data <json>', 'the whole body as JSON, @file or - (standard input)')
    .action(
      async (
        options: {
          name?: string;
          tag?: string[];
          runtime?: string;
          var?: Array<{ key: string; value: string }>;
          lockedVar?: Array<{ key: string; value: string }>;
          data?: string;
        },
        command: Command,
      ) => {
        const ctx = contextOf(command);
        const variables = [
          ...(options.var ?? []).map((v) => ({ ...v, locked: false })),
          ...(options.lockedVar ?? []).map((v) => ({ ...v, locked: true })),
        ];
        const body = {
          ...(await readJsonObject(options.data)),
          ...defined({
            name: options.name,
            tags: options.tag,
            runtimeId: options.runtime,
            environmentVariables: variables.length > 0 ? variables : undefined,
          }),
        };
        if (body.name === undefined) throw new UsageError('A check group needs --name (or a name in --data)');
        const created = (await ctx.client().json(checkGroupSchema, 'POST', '/v1/check-groups', { body })) as Group;
        ctx.out.result(created, () => ctx.out.print(`Created check group ${created.name}: ${created.id}`));
      },
    );
  example(create, 'vigil check-groups create --name Checkout --tag shop --var BASE_URL=https://shop.example.com');

  const rm = groups
    .command('rm')
    .description('delete a check group (it must have no checks left)')
    .argument('<groupId>', 'group id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      await ctx.client().send('DELETE', path(id));
      ctx.out.result({ deleted: id }, () => ctx.out.print(`Deleted check group ${id}`));
    });
  example(rm, 'vigil check-groups rm 4a1d…');
}
