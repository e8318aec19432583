import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { checklyHarness, installChecklyCli, type ChecklyHarness } from './support.ts';

/**
 * The real `checkly` CLI (pinned, from npm) against Vigil's /checkly, inside a loopback-only
 * network namespace: the commands that need only the account, its members and its variables.
 */
vi.setConfig({ testTimeout: 180_000 });
let vigil: TestVigil;
let owner: Awaited<ReturnType<typeof createAccount>>;
let checkly: ChecklyHarness;
let other: Awaited<ReturnType<typeof createAccount>>;

beforeAll(async () => {
  const [cli, started] = await Promise.all([installChecklyCli(), startVigil()]);
  vigil = started;
  owner = await createAccount(vigil, 'team');
  // A second account of the same owner, for `switch`; a key whose user has two accounts must name one.
  other = await createAccount(vigil, 'enterprise', owner.ownerEmail);
  checkly = await checklyHarness(cli, vigil.url, { apiKey: owner.ownerKey, accountId: owner.accountId });
}, 600_000);
afterAll(async () => {
  await checkly?.close();
  await vigil?.stop();
});

describe('checkly whoami and switch', () => {
  it('whoami names the real account, its id, its plan and the user', async () => {
    const account = (await owner.owner.get('/v1/accounts/me')).body;
    const run = await checkly.cli(['whoami']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `You are currently on account "${account.name}" (${owner.accountId}) as ${owner.ownerEmail}.`,
    );
    expect(run.stdout).toContain('Plan: Team');
  });

  it('switch --account-id selects another account of the same user; an unknown one fails', async () => {
    const run = await checkly.cli(['switch', '--account-id', other.accountId]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(`Account switched to ${other.accountId}`);
    const unknown = await checkly.cli(['switch', '--account-id', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr + unknown.stdout).toContain('Failed to find an account');
  });

  it('a wrong key fails authentication, naming the account', async () => {
    const run = await checkly.cli(['whoami'], { CHECKLY_API_KEY: 'vgl_notakey' });
    expect(run.code).not.toBe(0);
    expect((run.stderr + run.stdout).replace(/\s+/g, ' ')).toContain(
      `Authentication failed with account id "${owner.accountId}"`,
    );
  });
});

describe('checkly members', () => {
  it('lists, updates and removes members through /v1 users', async () => {
    const added = await owner.owner.post('/v1/users', { email: `member-${Date.now()}@example.com`, role: 'READ_ONLY' });
    expect(added.status).toBe(201);
    const memberId: string = added.body.user.id;
    const email: string = added.body.user.email;

    const list = await checkly.cli(['members', '--output', 'json']);
    expect(list.code, list.stderr).toBe(0);
    const listed = JSON.parse(list.stdout);
    expect(listed.members.map((m: { email: string }) => m.email).sort()).toEqual([email, owner.ownerEmail].sort());
    const table = await checkly.cli(['members']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain(email);

    const paged = JSON.parse((await checkly.cli(['members', '--limit', '1', '--output', 'json'])).stdout);
    expect(paged.members).toHaveLength(1);
    expect(paged.nextId).toBeTruthy();

    const update = await checkly.cli(['members', 'update', email, '--role', 'read_write', '--force']);
    expect(update.code, update.stderr + update.stdout).toBe(0);
    expect(update.stdout).toContain(`Account member "${email}" updated.`);
    const users = (await owner.owner.get('/v1/users')).body as Array<{ id: string; role: string }>;
    expect(users.find((u) => u.id === memberId)?.role).toBe('READ_WRITE');

    // A Checkly role Vigil does not have is refused, naming it; nothing changes.
    const readRun = await checkly.cli(['members', 'update', memberId, '--id', '--role', 'read_run', '--force']);
    expect(readRun.code).not.toBe(0);
    expect(readRun.stderr + readRun.stdout).toContain('role');

    const remove = await checkly.cli(['members', 'delete', email, '--force']);
    expect(remove.code, remove.stderr + remove.stdout).toBe(0);
    const after = (await owner.owner.get('/v1/users')).body as Array<{ id: string }>;
    expect(after.map((u) => u.id)).not.toContain(memberId);
  });
});

describe('checkly env', () => {
  it('add, ls, get, update, pull and rm work on Vigil variables', async () => {
    expect((await checkly.cli(['env', 'add', 'API_HOST', 'api.example.com'])).code).toBe(0);
    const secret = await checkly.cli(['env', 'add', 'API_TOKEN', 's3cr3t-value', '--secret']);
    expect(secret.code, secret.stderr).toBe(0);
    expect((await owner.owner.get('/v1/variables/API_HOST')).body).toMatchObject({ value: 'api.example.com' });

    const ls = await checkly.cli(['env', 'ls']);
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toContain('API_HOST');
    expect(ls.stdout).toContain('API_TOKEN');
    expect(ls.stdout).not.toContain('s3cr3t-value');

    const update = await checkly.cli(['env', 'update', 'API_HOST', 'api2.example.com']);
    expect(update.code, update.stderr).toBe(0);
    expect((await owner.owner.get('/v1/variables/API_HOST')).body).toMatchObject({ value: 'api2.example.com' });

    const pull = await checkly.cli(['env', 'pull', 'vars.env', '--force']);
    expect(pull.code, pull.stderr + pull.stdout).toBe(0);

    const rm = await checkly.cli(['env', 'rm', 'API_HOST', '--force']);
    expect(rm.code, rm.stderr + rm.stdout).toBe(0);
    expect((await owner.owner.get('/v1/variables/API_HOST')).status).toBe(404);
    const missing = await checkly.cli(['env', 'rm', 'API_HOST', '--force']);
    expect(missing.code).not.toBe(0);
  });

  it('runtimes lists Vigil runtimes', async () => {
    const run = await checkly.cli(['runtimes']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('2026.04');
  });
});
