import { Option, type Command } from 'commander';
import { contextOf } from '../context.ts';
import { example } from '../kit.ts';
import { createdAccountSchema } from '../schemas.ts';
import { saveStored } from '../store.ts';

interface CreateAccountOptions {
  name: string;
  plan: string;
  ownerEmail: string;
  runtime?: string;
  login?: boolean;
}

export function registerAdmin(program: Command): void {
  const admin = program.command('admin').description('platform administration (uses VIGIL_ADMIN_KEY)');
  example(admin, 'VIGIL_ADMIN_KEY=… vigil admin create-account --name Acme --owner-email ops@acme.test');

  const createAccount = admin
    .command('create-account')
    .description("create an account with its owner; prints the owner's first API key, shown only this once")
    .requiredOption('--name <name>', 'account name')
    .requiredOption('--owner-email <email>', "the owner's email")
    .addOption(new Option('--plan <plan>', 'plan').choices(['hobby', 'team', 'enterprise']).default('team'))
    .option('--runtime <runtimeId>', 'default runtime, YYYY.MM (default: the current one)')
    .option('--login', "store the owner's key as this CLI's credentials, as vigil login would")
    .action(async (options: CreateAccountOptions, command: Command) => {
      const ctx = contextOf(command);
      const body = {
        name: options.name,
        plan: options.plan,
        ownerEmail: options.ownerEmail,
        ...(options.runtime ? { runtimeId: options.runtime } : {}),
      };
      const created = await ctx.adminClient().json(createdAccountSchema, 'POST', '/v1/accounts', { body });
      const file = options.login
        ? saveStored(ctx.configDir, { apiUrl: ctx.apiUrl, apiKey: created.apiKey.key, accountId: created.account.id })
        : undefined;
      ctx.out.result(created, () => {
        ctx.out.record([
          ['Account', `${created.account.name} (${created.account.id})`],
          ['Plan', created.account.plan],
          ['Owner', `${created.owner.email} (${created.owner.id})`],
          ['API key', created.apiKey.key],
        ]);
        ctx.out.info(
          file
            ? `Logged in as the owner; credentials saved in ${file}`
            : 'The key is shown only once. Log in with it: vigil login --account ' + created.account.id,
        );
      });
    });
  example(
    createAccount,
    'vigil admin create-account --name Acme --owner-email ops@acme.test --plan enterprise --login',
  );
}
