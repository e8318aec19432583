import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { contextOf } from '../context.ts';
import { dotenvLine, MASKED } from '../dotenv.ts';
import { UsageError } from '../errors.ts';
import { defined, readStdin } from '../input.ts';
import { example, pageOptions, type PageOptions } from '../kit.ts';
import { fetchAll, fetchList } from '../paging.ts';
import { variableSchema, type Variable } from '../schemas.ts';

const path = (key: string) => `/v1/variables/${encodeURIComponent(key)}`;

export function registerEnv(program: Command): void {
  const env = program.command('env').description("the account's environment variables");
  example(env, 'vigil env ls', 'vigil env add BASE_URL https://example.com', 'vigil env pull .env');

  const ls = pageOptions(
    env.command('ls').description('list variables, sorted by key; masked values show as ********'),
  ).action(async (options: PageOptions, command: Command) => {
    const ctx = contextOf(command);
    const list = await fetchList(ctx.client(), '/v1/variables', variableSchema, options);
    ctx.out.result(list, () => ctx.out.table(list, variableColumns));
  });
  example(ls, 'vigil env ls', 'vigil env ls --json');

  const get = env
    .command('get')
    .description('show one variable')
    .argument('<key>', 'variable name')
    .option('--value', 'print only the value, for scripts')
    .action(async (key: string, options: { value?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const variable = await ctx.client().get(variableSchema, path(key));
      if (options.value && !ctx.out.json) return ctx.out.print(variable.value);
      ctx.out.result(variable, () => ctx.out.table([variable], variableColumns));
    });
  example(get, 'vigil env get BASE_URL', 'curl "$(vigil env get BASE_URL --value)/health"');

  const add = env
    .command('add')
    .description('create a variable')
    .argument('<key>', 'variable name: letters, digits and underscores')
    .argument('<value>', 'the value, or - to read it from standard input (keeps secrets out of shell history)')
    .option('--locked', 'hide the value from non-admins')
    .option('--secret', 'encrypt the value; it can never be read back or unlocked')
    .action(async (key: string, value: string, options: { locked?: boolean; secret?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const body = {
        key,
        value: await valueOf(value),
        locked: options.locked === true,
        secret: options.secret === true,
      };
      const created = await ctx.client().json(variableSchema, 'POST', '/v1/variables', { body });
      ctx.out.result(created, () => ctx.out.print(`Added ${created.key}`));
    });
  example(add, 'vigil env add BASE_URL https://example.com', 'vigil env add API_TOKEN - --secret < token.txt');

  const update = env
    .command('update')
    .description('change the value of a variable; flags not given keep their setting')
    .argument('<key>', 'variable name')
    .argument('<value>', 'the new value, or - to read it from standard input')
    .option('--locked', 'hide the value from non-admins')
    .option('--no-locked', 'show the value to every member')
    .option('--secret', 'make it secret (for good: a secret cannot be unlocked)')
    .action(async (key: string, value: string, options: { locked?: boolean; secret?: boolean }, command: Command) => {
      const ctx = contextOf(command);
      const body = defined({ value: await valueOf(value), locked: options.locked, secret: options.secret });
      const updated = await ctx.client().json(variableSchema, 'PUT', path(key), { body });
      ctx.out.result(updated, () => ctx.out.print(`Updated ${updated.key}`));
    });
  example(
    update,
    'vigil env update BASE_URL https://staging.example.com',
    'vigil env update BASE_URL https://example.com --no-locked',
  );

  const rm = env
    .command('rm')
    .description('delete a variable')
    .argument('<key>', 'variable name')
    .action(async (key: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      await ctx.client().send('DELETE', path(key));
      ctx.out.result({ deleted: key }, () => ctx.out.print(`Deleted ${key}`));
    });
  example(rm, 'vigil env rm BASE_URL');

  const pull = env
    .command('pull')
    .description('write every readable variable to a .env file; masked values are skipped with a warning')
    .argument('[file]', 'the file to write', '.env')
    .action(async (file: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const list = await fetchAll(ctx.client(), '/v1/variables', variableSchema);
      const lines: string[] = [];
      const written: string[] = [];
      const skipped: string[] = [];
      for (const variable of list) {
        const line = variable.value === MASKED ? undefined : dotenvLine(variable.key, variable.value);
        if (line === undefined) {
          skipped.push(variable.key);
          ctx.out.warn(
            variable.value === MASKED
              ? `${variable.key} is masked (secret or locked) and was not written`
              : `${variable.key} holds ', " and \` at once, which no .env quoting keeps intact; it was not written`,
          );
          continue;
        }
        lines.push(line);
        written.push(variable.key);
      }
      // The file holds credentials as often as not, so it gets the same 0600 as the config file.
      writeFileSync(file, lines.length === 0 ? '' : lines.join('\n') + '\n', { mode: 0o600 });
      ctx.out.result({ file, written, skipped }, () =>
        ctx.out.print(`Wrote ${written.length} variable${written.length === 1 ? '' : 's'} to ${file}`),
      );
    });
  example(pull, 'vigil env pull', 'vigil env pull .env.production');
}

const variableColumns = [
  { header: 'KEY', value: (v: Variable) => v.key },
  { header: 'VALUE', value: (v: Variable) => v.value },
  { header: 'LOCKED', value: (v: Variable) => (v.locked ? 'yes' : 'no') },
  { header: 'SECRET', value: (v: Variable) => (v.secret ? 'yes' : 'no') },
];

async function valueOf(raw: string): Promise<string> {
  if (raw !== '-') return raw;
  const value = (await readStdin()).replace(/\r?\n$/, '');
  if (value === '') throw new UsageError('No value on standard input');
  return value;
}
