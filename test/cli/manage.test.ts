import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { startVigil, type TestVigil } from '#test-vigil';
import { ownerEnv as baseOwnerEnv, tempDir, userEnv, vigil } from './run.ts';

/** The commands of issue 14: management after create, members and keys, logout, completion. */
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
const get = async (args: string[], env: Record<string, string>) => {
  const run = await vigil([...args, '--get', 'id'], { env });
  if (run.code !== 0) throw new Error(`${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
};

describe.concurrent('checks and channels after create', () => {
  it('checks update, deactivate and activate keep the other fields', async ({ expect }) => {
    const { env } = await ownerEnv();
    const id = await get(['checks', 'create', '--name', 'Orders', '--type', 'API', '--tag', 'prod'], env);
    expect((await vigil(['checks', 'update', id, '--frequency', '5'], { env })).code).toBe(0);
    expect((await vigil(['checks', 'deactivate', id], { env })).stdout).toMatch(/^Deactivated check Orders/);
    const after = JSON.parse((await vigil(['checks', 'get', id, '--json'], { env })).stdout);
    expect(after).toMatchObject({ name: 'Orders', frequency: 5, activated: false, tags: ['prod'] });
    expect((await vigil(['checks', 'activate', id, '--get', 'activated'], { env })).stdout.trim()).toBe('true');
  });

  it('alert-channels update keeps the secret, unsubscribe and delete work', async ({ expect }) => {
    const { env } = await ownerEnv();
    const check = await get(['checks', 'create', '--name', 'c', '--type', 'API'], env);
    const channel = await get(
      ['alert-channels', 'create', '--name', 'Ops', '--url', 'https://hooks.example.com/a', '--secret', 's3cret'],
      env,
    );
    expect((await vigil(['alert-channels', 'subscribe', channel, '--check', check], { env })).code).toBe(0);
    const updated = await vigil(['alert-channels', 'update', channel, '--name', 'Ops2', '--send-degraded', '--json'], {
      env,
    });
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ config: { name: 'Ops2', url: 'https://hooks.example.com/a' } });
    const shown = JSON.parse((await vigil(['alert-channels', 'get', channel, '--json'], { env })).stdout);
    expect(shown.sendDegraded).toBe(true);
    expect(JSON.stringify(shown.config)).not.toContain('s3cret');
    expect(shown.config.webhookSecret ?? shown.config.hasSecret ?? 'set').not.toBeNull();
    const un = await vigil(['alert-channels', 'unsubscribe', channel, '--check', check], { env });
    expect(un.stdout).toMatch(/^Unsubscribed Ops2 from check/);
    expect((await vigil(['alert-channels', 'subscribe', channel], { env })).code).toBe(2);
    expect((await vigil(['alert-channels', 'delete', channel], { env })).code).toBe(0);
    expect((await vigil(['alert-channels', 'get', channel], { env })).code).toBe(1);
  });
});

describe.concurrent('members, keys, session', () => {
  it('users ls/create/rm and api-keys create/ls/rm', async ({ expect }) => {
    const { env, account } = await ownerEnv();
    const created = await vigil(['users', 'create', 'dev@acme.test', '--role', 'READ_WRITE'], { env });
    expect(created.code).toBe(0);
    const users = JSON.parse((await vigil(['users', '--json'], { env })).stdout);
    const dev = users.find((u: { email: string }) => u.email === 'dev@acme.test');
    expect(dev).toMatchObject({ role: 'READ_WRITE' });
    expect(users.map((u: { email: string }) => u.email)).toContain(account.ownerEmail);
    expect((await vigil(['users', 'rm', dev.id], { env })).code).toBe(0);

    const key = await get(['api-keys', 'create', '--name', 'laptop'], env);
    expect((await vigil(['api-keys', 'ls'], { env })).stdout).toContain('laptop');
    expect((await vigil(['api-keys', 'rm', key], { env })).code).toBe(0);
    expect((await vigil(['api-keys', 'ls'], { env })).stdout).not.toContain('laptop');
  });

  it('logout removes the stored login; a rejected key is named', async ({ expect }) => {
    const { account } = await ownerEnv();
    const configDir = tempDir();
    const env = userEnv(server.url, configDir);
    expect((await vigil(['login', '--key', account.ownerKey], { env })).code).toBe(0);
    expect(existsSync(join(configDir, 'config.json'))).toBe(true);
    expect((await vigil(['logout'], { env })).stdout).toMatch(/^Logged out/);
    expect(existsSync(join(configDir, 'config.json'))).toBe(false);
    const bad = await vigil(['checks', 'ls'], { env: { ...env, VIGIL_API_KEY: 'vgl_not-a-real-key-at-all' } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('rejected key: VIGIL_API_KEY');
    const admin = await vigil(['admin', 'create-account', '--name', 'x', '--owner-email', 'x@x.test'], {
      env: { ...env, VIGIL_ADMIN_KEY: 'vgl_wrong-admin-key-0000000000' },
    });
    expect(admin.stderr).toContain('rejected key: VIGIL_ADMIN_KEY');
  });

  it('completion for bash, zsh and fish; runtimes alone lists', async ({ expect }) => {
    const { env } = await ownerEnv();
    const [bash, zsh, fish, runtimes] = await Promise.all([
      vigil(['completion', 'bash']),
      vigil(['completion', 'zsh']),
      vigil(['completion', 'fish']),
      vigil(['runtimes'], { env }),
    ]);
    expect(bash.stdout).toContain('complete -F _vigil vigil');
    expect(bash.stdout).toMatch(/"alert-channels"\) words="[^"]*subscribe/);
    expect(zsh.stdout).toContain('bashcompinit');
    expect(fish.stdout).toContain("complete -c vigil -f -n '__fish_use_subcommand' -a checks");
    expect(runtimes.code).toBe(0);
    expect(runtimes.stdout).toMatch(/^NAME\s+STAGE/);
    expect((await vigil(['completion', 'tcsh'])).code).toBe(2);
  });
});
