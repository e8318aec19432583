import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { ownerEnv as baseOwnerEnv, tempDir, userEnv, vigil } from './run.ts';

/**
 * The real `vigil` binary, as child processes, against a Vigil started in this process. Tests are
 * concurrent (each child spends most of its time starting up) and each uses its own account and
 * config directory, so none depends on another. One describe per feature; features whose routes
 * come later get their own file, with the helpers of run.ts.
 */
let server: TestVigil;
// Each test runs the real binary several times; on a loaded machine that outlasts the default 60 s.
vi.setConfig({ testTimeout: 240_000 });

beforeAll(async () => {
  server = await startVigil();
});
afterAll(async () => {
  await server?.stop();
});

const ownerEnv = () => baseOwnerEnv(server);

const ANSI = '\u001b[';

describe.concurrent('credentials', () => {
  it('admin create-account --login stores the owner key (0600); whoami shows the account, plan and URL', async ({
    expect,
  }) => {
    const configDir = tempDir();
    const env = userEnv(server.url, configDir, { VIGIL_ADMIN_KEY: server.adminKey });
    const created = await vigil(
      [
        'admin',
        'create-account',
        '--name',
        'Acme CLI',
        '--owner-email',
        'ops@acme.test',
        '--plan',
        'enterprise',
        '--login',
        '--json',
      ],
      { env },
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const body = JSON.parse(created.stdout);
    expect(body).toMatchObject({
      account: { name: 'Acme CLI', plan: 'enterprise' },
      owner: { email: 'ops@acme.test' },
    });
    expect(body.apiKey.key).toMatch(/^vgl_/);

    const file = join(configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      apiUrl: server.url,
      apiKey: body.apiKey.key,
      accountId: body.account.id,
    });

    const whoami = await vigil(['whoami'], { env: userEnv(server.url, configDir) });
    expect(whoami.code).toBe(0);
    expect(whoami.stdout).toContain(body.account.id);
    expect(whoami.stdout).toContain('Acme CLI');
    expect(whoami.stdout).toContain('enterprise');
    expect(whoami.stdout).toContain(server.url);
    expect(whoami.stdout).not.toContain(body.apiKey.key);
    expect(whoami.stdout).not.toContain(ANSI);

    const json = JSON.parse((await vigil(['whoami', '--json'], { env: userEnv(server.url, configDir) })).stdout);
    expect(json).toMatchObject({
      account: { id: body.account.id, plan: 'enterprise' },
      apiUrl: server.url,
      key: { source: 'config file', name: 'default', type: 'user' },
    });
  });

  it('admin create-account without VIGIL_ADMIN_KEY is a usage error; with a user key it is the API 403', async ({
    expect,
  }) => {
    const configDir = tempDir();
    const missing = await vigil(['admin', 'create-account', '--name', 'X', '--owner-email', 'x@example.com'], {
      env: userEnv(server.url, configDir),
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('VIGIL_ADMIN_KEY');
    const { account } = await ownerEnv();
    const forbidden = await vigil(['admin', 'create-account', '--name', 'X', '--owner-email', 'x@example.com'], {
      env: userEnv(server.url, configDir, { VIGIL_ADMIN_KEY: account.ownerKey }),
    });
    expect(forbidden.code).toBe(1);
    expect(forbidden.stderr).toContain('This route needs the platform admin key');
  });

  it('login reads the key from stdin and stores key, account and URL; the variables override what is stored', async ({
    expect,
  }) => {
    const account = await createAccount(server);
    const configDir = tempDir();
    // A stored URL that is wrong on purpose: a URL from the environment must win over it.
    const login = await vigil(['login', '--api-url', server.url], {
      env: { VIGIL_CONFIG_DIR: configDir },
      input: `${account.ownerKey}\n`,
    });
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(login.stdout).toContain(account.accountId);
    const file = join(configDir, 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      apiUrl: server.url,
      apiKey: account.ownerKey,
      accountId: account.accountId,
    });

    const stored = await vigil(['whoami', '--json'], { env: { VIGIL_CONFIG_DIR: configDir } });
    expect(stored.code).toBe(0);
    expect(JSON.parse(stored.stdout).account.id).toBe(account.accountId);

    const wrongKey = await vigil(['whoami'], {
      env: { VIGIL_CONFIG_DIR: configDir, VIGIL_API_KEY: 'vgl_' + 'x'.repeat(43) },
    });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain('Unknown or deleted API key');
    expect(wrongKey.stdout).toBe('');

    const wrongUrl = await vigil(['whoami'], {
      env: { VIGIL_CONFIG_DIR: configDir, VIGIL_API_URL: 'http://127.0.0.1:9' },
    });
    expect(wrongUrl.code).toBe(1);
    expect(wrongUrl.stderr).toContain('Cannot reach http://127.0.0.1:9');
  });

  it('login with a key for two accounts asks for --account; not logged in is a usage error', async ({ expect }) => {
    const email = `two-${Date.now()}@example.com`;
    const first = await createAccount(server, 'team', email);
    const second = await createAccount(server, 'team', email);
    const configDir = tempDir();
    const ambiguous = await vigil(['login', '--key', first.ownerKey], { env: userEnv(server.url, configDir) });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('--account');
    const picked = await vigil(['login', '--key', first.ownerKey, '--account', second.accountId, '--json'], {
      env: userEnv(server.url, configDir),
    });
    expect(picked.code).toBe(0);
    expect(JSON.parse(picked.stdout)).toMatchObject({ accountId: second.accountId, apiUrl: server.url });
    const none = await vigil(['env', 'ls'], { env: userEnv(server.url, tempDir()) });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('vigil login');
  });
});

describe.concurrent('accounts', () => {
  it('ls and get, as tables and as JSON', async ({ expect }) => {
    const { account, env } = await ownerEnv();
    const ls = await vigil(['accounts', 'ls'], { env });
    expect(ls.code).toBe(0);
    const [header, row] = ls.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+NAME\s+PLAN\s+RUNTIME$/);
    expect(row).toMatch(new RegExp(`^${account.accountId}\\s+Account \\S+\\s+team\\s+2025\\.04$`));

    const [lsJson, get, me] = await Promise.all([
      vigil(['accounts', 'ls', '--json'], { env }),
      vigil(['accounts', 'get', account.accountId, '--json'], { env }),
      vigil(['accounts', 'get'], { env }),
    ]);
    expect(JSON.parse(lsJson.stdout).map((a: { id: string }) => a.id)).toEqual([account.accountId]);
    expect(JSON.parse(get.stdout)).toMatchObject({
      id: account.accountId,
      plan: 'team',
      runtimeId: '2025.04',
      alertSettings: { escalationType: 'RUN_BASED' },
    });
    expect(me.code).toBe(0);
    expect(me.stdout).toMatch(new RegExp(`^ID\\s+${account.accountId}$`, 'm'));
  });

  it('get of a foreign account: exit 1 with the API message', async ({ expect }) => {
    const { env } = await ownerEnv();
    const other = await createAccount(server);
    const result = await vigil(['accounts', 'get', other.accountId], { env });
    expect(result.code).toBe(1);
    // Existence is private: a foreign account answers exactly like an unknown one (404).
    expect(result.stderr).toMatch(/Account \S+ not found/);
  });
});

describe.concurrent('env', () => {
  it('add, ls, get, update, rm', async ({ expect }) => {
    const { env } = await ownerEnv();
    const added = await Promise.all([
      vigil(['env', 'add', 'BASE_URL', 'https://example.com'], { env }),
      vigil(['env', 'add', 'REGION', 'eu-west-1', '--locked'], { env }),
      vigil(['env', 'add', 'TOKEN', '-', '--secret', '--json'], { env, input: 's3cr3t\n' }),
    ]);
    expect(added.map((run) => run.code)).toEqual([0, 0, 0]);
    expect(added[0]!.stdout).toBe('Added BASE_URL\n');
    expect(JSON.parse(added[2]!.stdout)).toEqual({ key: 'TOKEN', value: '********', locked: false, secret: true });

    const ls = await vigil(['env', 'ls'], { env });
    expect(ls.code).toBe(0);
    const lines = ls.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^KEY\s+VALUE\s+LOCKED\s+SECRET$/);
    // Aligned: every column starts at the same offset on every line.
    const valueAt = lines[0]!.indexOf('VALUE');
    expect(lines.slice(1).map((line) => line.slice(valueAt).split(/\s{2,}/)[0])).toEqual([
      'https://example.com',
      'eu-west-1',
      '********',
    ]);

    const [get, value, json] = await Promise.all([
      vigil(['env', 'get', 'REGION'], { env }),
      vigil(['env', 'get', 'BASE_URL', '--value'], { env }),
      vigil(['env', 'ls', '--json'], { env }),
    ]);
    expect(get.stdout).toMatch(/^REGION\s+eu-west-1\s+yes\s+no$/m);
    expect(value.stdout).toBe('https://example.com\n');
    expect(JSON.parse(json.stdout).map((v: { key: string }) => v.key)).toEqual(['BASE_URL', 'REGION', 'TOKEN']);

    const updated = await vigil(['env', 'update', 'REGION', 'us-east-1', '--no-locked', '--json'], { env });
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toEqual({ key: 'REGION', value: 'us-east-1', locked: false, secret: false });

    const removed = await vigil(['env', 'rm', 'BASE_URL'], { env });
    expect(removed).toMatchObject({ code: 0, stdout: 'Deleted BASE_URL\n' });
    const gone = await vigil(['env', 'get', 'BASE_URL'], { env });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/BASE_URL/);
  });

  it('add of an existing key and an invalid key: exit 1 with the API message', async ({ expect }) => {
    const { env } = await ownerEnv();
    await vigil(['env', 'add', 'DUP', 'one'], { env });
    const [duplicate, invalid] = await Promise.all([
      vigil(['env', 'add', 'DUP', 'two'], { env }),
      vigil(['env', 'add', '1-bad', 'x'], { env }),
    ]);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('variable DUP already exists');
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('key');
  });

  it('pull writes a .env file that Node reads back, skipping the secret with a warning', async ({ expect }) => {
    const { account, env } = await ownerEnv();
    const values: Record<string, string> = {
      PLAIN: 'https://example.com/path?x=1',
      SPACES: '  padded value # not a comment ',
      QUOTES: `it's "quoted"`,
      MULTILINE: 'line one\nline two',
      DOLLAR: '$HOME and ${PATH}',
    };
    await Promise.all(
      Object.entries(values).map(([key, value]) => account.owner.post('/v1/variables', { key, value })),
    );
    await account.owner.post('/v1/variables', { key: 'API_TOKEN', value: 'hidden', secret: true });

    const dir = tempDir('vigil-pull-');
    const pulled = await vigil(['env', 'pull'], { env, cwd: dir });
    expect(pulled.code).toBe(0);
    expect(pulled.stdout).toBe('Wrote 5 variables to .env\n');
    expect(pulled.stderr).toContain('Warning: API_TOKEN is masked (secret or locked) and was not written');
    const file = join(dir, '.env');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('API_TOKEN');
    expect(text).toContain("PLAIN='https://example.com/path?x=1'\n");
    const { parseEnv } = await import('node:util');
    expect(parseEnv(text)).toEqual(values);

    const named = await vigil(['env', 'pull', join(dir, 'prod.env'), '--json'], { env });
    expect(JSON.parse(named.stdout)).toMatchObject({
      written: ['DOLLAR', 'MULTILINE', 'PLAIN', 'QUOTES', 'SPACES'],
      skipped: ['API_TOKEN'],
    });
  });
});

describe.concurrent('runtimes', () => {
  it('ls and get', async ({ expect }) => {
    const { env } = await ownerEnv();
    const [ls, get, json] = await Promise.all([
      vigil(['runtimes', 'ls'], { env }),
      vigil(['runtimes', 'get', '2025.04'], { env }),
      vigil(['runtimes', 'ls', '--json'], { env }),
    ]);
    expect(ls.code).toBe(0);
    expect(ls.stdout.split('\n')[0]).toMatch(/^NAME\s+STAGE\s+NODE\s+MULTI-STEP\s+END OF LIFE$/);
    expect(ls.stdout).toMatch(/^2025\.04\s+CURRENT\s+v22\.11\.0\s+yes\s+2027-04-30$/m);
    expect(get.stdout).toMatch(/^Stage\s+CURRENT$/m);
    expect(get.stdout).toMatch(/^playwright\s+1\.51\.1$/m);
    expect(JSON.parse(json.stdout).map((r: { name: string }) => r.name)).toContain('2025.04');
    const missing = await vigil(['runtimes', 'get', '1999.01'], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Runtime 1999.01 not found');
  });
});

describe.concurrent('api', () => {
  it('GET and POST any route; an API error exits 1 with its message', async ({ expect }) => {
    const { account, env } = await ownerEnv();
    const [me, posted] = await Promise.all([
      vigil(['api', 'GET', '/v1/accounts/me'], { env }),
      vigil(['api', 'post', '/v1/variables', '--data', '{"key":"FROM_API","value":"yes"}'], { env }),
    ]);
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout).id).toBe(account.accountId);
    expect(posted.code).toBe(0);
    expect(JSON.parse(posted.stdout)).toEqual({ key: 'FROM_API', value: 'yes', locked: false, secret: false });

    const [listed, bad] = await Promise.all([
      vigil(['api', 'GET', '/v1/variables', '-q', 'limit=1', '--include'], { env }),
      vigil(['api', 'POST', '/v1/variables', '--data', '{"key":"NO_VALUE"}'], { env }),
    ]);
    expect(JSON.parse(listed.stdout)).toHaveLength(1);
    expect(listed.stderr).toContain('x-total-count: 1');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^Error: .*value/m);
  });
});

describe.concurrent('usage', () => {
  it('a bad flag, a missing argument, an unknown command and bad --data exit 2', async ({ expect }) => {
    const env = userEnv(server.url, tempDir());
    const runs = await Promise.all([
      vigil(['env', 'ls', '--bogus'], { env }),
      vigil(['env', 'get'], { env }),
      vigil(['frobnicate'], { env }),
      vigil(['api', 'GET', '/v1/accounts/me', '--data', '{oops'], { env: { ...env, VIGIL_API_KEY: 'vgl_x' } }),
    ]);
    expect(runs.map((run) => run.code)).toEqual([2, 2, 2, 2]);
    expect(runs[0]!.stderr).toContain("unknown option '--bogus'");
    expect(runs[1]!.stderr).toContain("missing required argument 'key'");
    expect(runs[2]!.stderr).toContain("unknown command 'frobnicate'");
    expect(runs[3]!.stderr).toContain('--data is not valid JSON');
  });

  it('--help exits 0 and shows an example', async ({ expect }) => {
    const runs = await Promise.all([
      vigil(['--help']),
      vigil(['env', 'pull', '--help']),
      vigil(['analytics', '--help']),
    ]);
    for (const run of runs) {
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Example:');
    }
    expect(runs[2]!.stdout).toContain('--metrics <list>');
  });
});
