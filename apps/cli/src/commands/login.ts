import { existsSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import type { Command } from 'commander';
import { z } from 'zod';
import { contextOf } from '../context.ts';
import { CliError, UsageError } from '../errors.ts';
import { ApiClient } from '../http.ts';
import { readStdin } from '../input.ts';
import { example } from '../kit.ts';
import { accountSchema, apiKeySchema } from '../schemas.ts';
import { configFile, saveStored } from '../store.ts';

export function registerLogin(program: Command): void {
  const login = program
    .command('login')
    .description('check an API key and store it, with the account and API URL, in the config directory (mode 0600)')
    .option('--key <key>', 'the API key (default: VIGIL_API_KEY, standard input, or a prompt)')
    .action(async (options: { key?: string }, command: Command) => {
      const ctx = contextOf(command);
      const apiKey = options.key ?? ctx.env.apiKey ?? (await askForKey());
      if (!apiKey) throw new UsageError('No API key given');
      const apiUrl = ctx.apiUrl;
      // Any key may list its accounts; that both proves the key and picks the account.
      const accounts = await new ApiClient(apiUrl, apiKey).get(z.array(accountSchema), '/v1/accounts');
      const wanted = ctx.options.account ?? ctx.env.accountId;
      let account = accounts[0];
      if (wanted !== undefined) {
        account = accounts.find((candidate) => candidate.id === wanted);
        if (!account) throw new CliError(`This key has no access to account ${wanted}`);
      } else if (accounts.length !== 1) {
        const ids = accounts.map((candidate) => `${candidate.id} (${candidate.name})`).join(', ');
        throw new UsageError(
          accounts.length === 0
            ? 'This key has no access to any account'
            : `This key can access several accounts; pick one with --account: ${ids}`,
        );
      }
      if (!account) throw new CliError('This key has no access to any account');
      const file = saveStored(ctx.configDir, { apiUrl, apiKey, accountId: account.id });
      ctx.out.result({ accountId: account.id, accountName: account.name, apiUrl, configFile: file }, () =>
        ctx.out.print(`Logged in to ${account.name} (${account.id}) at ${apiUrl}\nCredentials saved in ${file}`),
      );
    });
  example(
    login,
    'vigil login --api-url https://vigil.example.com --account 6f1c… < key.txt',
    'VIGIL_API_KEY=vgl_… vigil login',
  );

  const whoami = program
    .command('whoami')
    .description('show the account, the key and the API URL in use')
    .action(async (_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const credentials = ctx.credentials();
      const client = ctx.client();
      const [account, key, me] = await Promise.all([
        client.get(accountSchema, '/v1/accounts/me'),
        identifyKey(client, credentials.apiKey ?? ''),
        client.get(whoamiSchema, '/v1/whoami').catch(() => undefined),
      ]);
      const masked = `${(credentials.apiKey ?? '').slice(0, 4)}…${(credentials.apiKey ?? '').slice(-4)}`;
      const data = {
        account: { id: account.id, name: account.name, plan: account.plan ?? null },
        user: me?.user ?? null,
        role: me?.role ?? key?.role ?? null,
        apiUrl: credentials.apiUrl,
        key: {
          masked,
          source: credentials.keySource,
          id: key?.id ?? null,
          name: key?.name ?? null,
          type: key?.type ?? null,
          role: key?.role ?? null,
        },
        configFile: configFile(ctx.configDir),
      };
      ctx.out.result(data, () =>
        ctx.out.record([
          ['Account', `${account.name} (${account.id})`],
          ['Plan', account.plan],
          ['User', me?.user?.email ?? (me?.keyType === 'service' ? '(service key)' : null)],
          ['Role', me?.role ?? key?.role ?? null],
          ['API URL', credentials.apiUrl],
          ['Key', key ? `${masked} "${key.name}" (${key.type} key${key.role ? `, ${key.role}` : ''})` : masked],
          ['Key from', credentials.keySource === 'config file' ? configFile(ctx.configDir) : credentials.keySource],
        ]),
      );
    });
  example(whoami, 'vigil whoami', 'vigil whoami --json');

  const logout = program
    .command('logout')
    .description(
      'forget the stored key (the config file is removed; the key itself stays valid: revoke it with api-keys rm)',
    )
    .action((_options: unknown, command: Command) => {
      const ctx = contextOf(command);
      const file = configFile(ctx.configDir);
      const existed = existsSync(file);
      rmSync(file, { force: true });
      ctx.out.result({ configFile: file, removed: existed }, () =>
        ctx.out.print(existed ? `Logged out: removed ${file}` : `Not logged in (no ${file})`),
      );
      if (ctx.env.apiKey) ctx.out.warn('VIGIL_API_KEY is still set in this shell; unset it too');
    });
  example(logout, 'vigil logout');
}

const whoamiSchema = z.looseObject({
  role: z.string(),
  keyType: z.string(),
  user: z.looseObject({ id: z.string(), email: z.string() }).nullable(),
});

/** The API never returns a key, only its last four characters; a unique match names it. */
async function identifyKey(client: ApiClient, apiKey: string) {
  try {
    const keys = await client.get(z.array(apiKeySchema), '/v1/api-keys');
    const matches = keys.filter((key) => apiKey.endsWith(key.last4));
    return matches.length === 1 ? matches[0] : undefined;
  } catch {
    return undefined;
  }
}

async function askForKey(): Promise<string | undefined> {
  if (!process.stdin.isTTY) return (await readStdin()).trim() || undefined;
  // Readline echoes into a stream that drops everything, so the key never shows on screen.
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  process.stderr.write('API key: ');
  const prompt = createInterface({ input: process.stdin, output: muted, terminal: true });
  try {
    return (await prompt.question('')).trim() || undefined;
  } finally {
    process.stderr.write('\n');
    prompt.close();
  }
}
