import { Option, type Command } from 'commander';
import { z } from 'zod';
import { contextOf } from '../context.ts';
import { example } from '../kit.ts';
import { apiKeySchema } from '../schemas.ts';

const ROLES = ['READ_ONLY', 'READ_WRITE', 'ADMIN', 'OWNER'];
const memberSchema = z.looseObject({ id: z.string(), email: z.string(), role: z.string() });
const issuedKeySchema = z.looseObject({ id: z.string(), name: z.string(), key: z.string() });

/** users and api-keys: ls, create, rm. Managing them needs ADMIN or above; the role ceiling applies. */
export function registerMembers(program: Command): void {
  const users = program.command('users').description('members of the account');
  example(users, 'vigil users ls', 'vigil users create dev@acme.test --role READ_WRITE');

  const usersLs = users
    .command('ls', { isDefault: true })
    .description('list the members and their roles')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const list = await ctx.client().get(z.array(memberSchema), '/v1/users');
      ctx.out.result(list, () =>
        ctx.out.table(list, [
          { header: 'ID', value: (u) => u.id },
          { header: 'EMAIL', value: (u) => u.email },
          { header: 'ROLE', value: (u) => u.role },
        ]),
      );
    });
  example(usersLs, 'vigil users ls --json');

  const usersCreate = users
    .command('create')
    .description('add a user; a new user gets a first API key, shown once')
    .argument('<email>', 'their email')
    .addOption(new Option('--role <role>', 'their role (at most yours)').choices(ROLES).default('READ_ONLY'))
    .action(async (email: string, options: { role: string }, command: Command) => {
      const ctx = contextOf(command);
      const answer = await ctx
        .client()
        .json(z.looseObject({}), 'POST', '/v1/users', { body: { email, role: options.role } });
      ctx.out.result(answer, () => {
        ctx.out.print(`Added ${email} as ${options.role}`);
        const key = (answer as { apiKey?: { key?: string } }).apiKey?.key;
        if (key) ctx.out.print(`Their first API key (shown once): ${key}`);
      });
    });
  example(usersCreate, 'vigil users create dev@acme.test --role READ_WRITE');

  const usersRm = users
    .command('rm')
    .description('remove a user from the account; their keys lose access at once')
    .argument('<userId>', 'user id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      await ctx.client().send('DELETE', `/v1/users/${encodeURIComponent(id)}`);
      ctx.out.result({ removed: id }, () => ctx.out.print(`Removed user ${id}`));
    });
  example(usersRm, 'vigil users rm 5c1e…');

  const keys = program.command('api-keys').description('API keys: your own, and the account’s service keys');
  example(keys, 'vigil api-keys ls', 'vigil api-keys create --name ci --service --role READ_WRITE');

  const keysLs = keys
    .command('ls', { isDefault: true })
    .description('list keys (only their last four characters are ever shown again)')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const list = await ctx.client().get(z.array(apiKeySchema), '/v1/api-keys');
      ctx.out.result(list, () =>
        ctx.out.table(list, [
          { header: 'ID', value: (k) => k.id },
          { header: 'NAME', value: (k) => k.name },
          { header: 'TYPE', value: (k) => k.type },
          { header: 'ROLE', value: (k) => k.role },
          { header: 'KEY', value: (k) => `…${k.last4}` },
        ]),
      );
    });
  example(keysLs, 'vigil api-keys ls');

  const keysCreate = keys
    .command('create')
    .description('create a key, shown once: yours by default, or a service key of the account (--service)')
    .requiredOption('--name <name>', 'what the key is for')
    .option('--service', 'a service key: belongs to the account, carries its own role (enterprise plan)')
    .addOption(new Option('--role <role>', 'a service key’s role (at most yours)').choices(ROLES))
    .action(async (options: { name: string; service?: boolean; role?: string }, command: Command) => {
      const ctx = contextOf(command);
      const body = options.service
        ? { name: options.name, type: 'service', ...(options.role ? { role: options.role } : {}) }
        : { name: options.name, type: 'user' };
      const issued = await ctx.client().json(issuedKeySchema, 'POST', '/v1/api-keys', { body });
      ctx.out.result(issued, () =>
        ctx.out.print(`Created key ${issued.name} (${issued.id}); shown once:\n${issued.key}`),
      );
    });
  example(
    keysCreate,
    'vigil api-keys create --name laptop',
    'vigil api-keys create --name ci --service --role READ_WRITE',
  );

  const keysRm = keys
    .command('rm')
    .description('revoke a key at once')
    .argument('<keyId>', 'key id')
    .action(async (id: string, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      await ctx.client().send('DELETE', `/v1/api-keys/${encodeURIComponent(id)}`);
      ctx.out.result({ revoked: id }, () => ctx.out.print(`Revoked key ${id}`));
    });
  example(keysRm, 'vigil api-keys rm 9d4b…');
}
