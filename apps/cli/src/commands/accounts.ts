import type { Command } from 'commander';
import { z } from 'zod';
import { contextOf } from '../context.ts';
import { example } from '../kit.ts';
import { accountSchema, type Account } from '../schemas.ts';

export function registerAccounts(program: Command): void {
  const accounts = program.command('accounts').description('accounts this key can access');
  example(accounts, 'vigil accounts ls');

  const ls = accounts
    .command('ls')
    .description('list the accounts this key can access')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const list = await ctx.client().get(z.array(accountSchema), '/v1/accounts');
      ctx.out.result(list, () =>
        ctx.out.table(list, [
          { header: 'ID', value: (a: Account) => a.id },
          { header: 'NAME', value: (a: Account) => a.name },
          { header: 'PLAN', value: (a: Account) => a.plan },
          { header: 'RUNTIME', value: (a: Account) => a.runtimeId },
        ]),
      );
    });
  example(ls, 'vigil accounts ls --json');

  const get = accounts
    .command('get')
    .description('show one account (default: the current one)')
    .argument('[accountId]', 'account id')
    .action(async (accountId: string | undefined, _options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const path = accountId === undefined ? '/v1/accounts/me' : `/v1/accounts/${encodeURIComponent(accountId)}`;
      const account = await ctx.client().get(accountSchema, path);
      ctx.out.result(account, () =>
        ctx.out.record([
          ['ID', account.id],
          ['Name', account.name],
          ['Plan', account.plan],
          ['Runtime', account.runtimeId],
          ['Settings', account.settings],
          ['Alert settings', account.alertSettings],
        ]),
      );
    });
  example(get, 'vigil accounts get', 'vigil accounts get 6f1c2e0a-…');
}
