import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { startVigil, type TestVigil } from '#test-vigil';
import { ownerEnv as baseOwnerEnv, vigil } from './run.ts';

/** `vigil checks` and `vigil check-groups`: the real binary against a Vigil started in this process. */
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
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

function createdId(stdout: string): string {
  const id = UUID.exec(stdout)?.[0];
  if (!id) throw new Error(`no id in ${JSON.stringify(stdout)}`);
  return id;
}

describe.concurrent('checks', () => {
  it('create, ls with --type and --tag, get, rm', async ({ expect }) => {
    const { env } = await ownerEnv();
    const created = await Promise.all([
      vigil(
        [
          'checks',
          'create',
          '--name',
          'Login API',
          '--type',
          'API',
          '--frequency',
          '5',
          '--tag',
          'prod,auth',
          '--location',
          'eu-west-1',
          '--degraded-ms',
          '800',
          '--max-ms',
          '2000',
        ],
        { env },
      ),
      vigil(['checks', 'create', '--name', 'Homepage', '--type', 'URL', '--tag', 'prod', '--json'], { env }),
      vigil(
        [
          'checks',
          'create',
          '--data',
          '{"name":"Staging API","checkType":"API","tags":["staging"]}',
          '--muted',
          '--no-activated',
        ],
        { env },
      ),
    ]);
    expect(created.map((run) => run.stderr)).toEqual(['', '', '']);
    expect(created.map((run) => run.code)).toEqual([0, 0, 0]);
    expect(created[0]!.stdout).toMatch(new RegExp(`^Created API check Login API: ${UUID.source}\n$`));
    const loginId = createdId(created[0]!.stdout);
    const homepage = JSON.parse(created[1]!.stdout);
    expect(homepage).toMatchObject({
      name: 'Homepage',
      checkType: 'URL',
      tags: ['prod'],
      frequency: 10,
      activated: true,
      muted: false,
    });
    const stagingId = createdId(created[2]!.stdout);

    const [ls, apiOnly, prodOnly, prodApi, get, getJson] = await Promise.all([
      vigil(['checks', 'ls'], { env }),
      vigil(['checks', 'ls', '--type', 'API', '--json'], { env }),
      vigil(['checks', 'ls', '--tag', 'prod', '--json'], { env }),
      vigil(['checks', 'ls', '--type', 'API', '--tag', 'prod'], { env }),
      vigil(['checks', 'get', loginId], { env }),
      vigil(['checks', 'get', stagingId, '--json'], { env }),
    ]);
    expect(ls.code).toBe(0);
    const lines = ls.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+TYPE\s+EVERY\s+ACTIVE\s+MUTED\s+TAGS$/);
    expect(lines).toHaveLength(4);
    expect(ls.stdout).toMatch(new RegExp(`^${loginId}\\s+Login API\\s+API\\s+5 min\\s+yes\\s+no\\s+prod, auth$`, 'm'));
    expect(ls.stdout).toMatch(
      new RegExp(`^${stagingId}\\s+Staging API\\s+API\\s+10 min\\s+no\\s+yes\\s+staging$`, 'm'),
    );
    const names = (run: { stdout: string }) =>
      (JSON.parse(run.stdout) as Array<{ name: string }>).map((check) => check.name).sort();
    expect(names(apiOnly)).toEqual(['Login API', 'Staging API']);
    expect(names(prodOnly)).toEqual(['Homepage', 'Login API']);
    expect(prodApi.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(prodApi.stdout).toContain(loginId);

    expect(get.code).toBe(0);
    expect(get.stdout).toMatch(/^checkType\s+API$/m);
    expect(get.stdout).toMatch(/^locations\s+eu-west-1$/m);
    expect(get.stdout).toMatch(/^degradedResponseTime\s+800$/m);
    expect(get.stdout).toMatch(/^maxResponseTime\s+2000$/m);
    expect(JSON.parse(getJson.stdout)).toMatchObject({
      id: stagingId,
      name: 'Staging API',
      activated: false,
      muted: true,
      tags: ['staging'],
    });

    const rm = await vigil(['checks', 'rm', loginId], { env });
    expect(rm).toMatchObject({ code: 0, stdout: `Deleted check ${loginId}\n` });
    const [gone, after] = await Promise.all([
      vigil(['checks', 'get', loginId], { env }),
      vigil(['checks', 'ls', '--type', 'API', '--json'], { env }),
    ]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('not found');
    expect(names(after)).toEqual(['Staging API']);
  });

  it('create without --type is a usage error; a bad --type and an API validation error are reported', async ({
    expect,
  }) => {
    const { env } = await ownerEnv();
    const [noType, badType, badFrequency, invalid] = await Promise.all([
      vigil(['checks', 'create', '--name', 'No type'], { env }),
      vigil(['checks', 'ls', '--type', 'SMTP'], { env }),
      vigil(['checks', 'create', '--name', 'X', '--type', 'API', '--frequency', '7'], { env }),
      // Degraded above max: only the API knows that rule.
      vigil(['checks', 'create', '--name', 'Slow', '--type', 'API', '--degraded-ms', '3000', '--max-ms', '1000'], {
        env,
      }),
    ]);
    expect([noType.code, badType.code, badFrequency.code]).toEqual([2, 2, 2]);
    expect(noType.stderr).toContain('A check needs --name and --type');
    expect(badType.stderr).toContain("argument 'SMTP' is invalid");
    expect(badFrequency.stderr).toContain("argument '7' is invalid");
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('degradedResponseTime: must not exceed maxResponseTime (1000 ms)');
    // Nothing was created by any of them.
    const ls = await vigil(['checks', 'ls', '--json'], { env });
    expect(JSON.parse(ls.stdout)).toEqual([]);
  });
});

describe.concurrent('check-groups', () => {
  it('create, ls, get, rm; rm of a group that still has checks is the API 409', async ({ expect }) => {
    const { env } = await ownerEnv();
    const [created, json] = await Promise.all([
      vigil(
        [
          'check-groups',
          'create',
          '--name',
          'Checkout',
          '--tag',
          'shop',
          '--runtime',
          '2025.04',
          '--var',
          'BASE_URL=https://shop.example.com',
          '--locked-var',
          'TOKEN=abc',
        ],
        { env },
      ),
      vigil(['check-groups', 'create', '--name', 'Empty', '--json'], { env }),
    ]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(new RegExp(`^Created check group Checkout: ${UUID.source}\n$`));
    const checkoutId = createdId(created.stdout);
    const empty = JSON.parse(json.stdout);
    expect(empty).toMatchObject({ name: 'Empty', tags: [], runtimeId: null, environmentVariables: [] });

    const [ls, get, getJson, inGroup] = await Promise.all([
      vigil(['check-groups', 'ls'], { env }),
      vigil(['check-groups', 'get', checkoutId], { env }),
      vigil(['check-groups', 'get', checkoutId, '--json'], { env }),
      vigil(['checks', 'create', '--name', 'Cart', '--type', 'API', '--group', checkoutId, '--json'], { env }),
    ]);
    const lines = ls.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+RUNTIME\s+TAGS\s+VARIABLES$/);
    expect(lines).toHaveLength(3);
    expect(ls.stdout).toMatch(new RegExp(`^${checkoutId}\\s+Checkout\\s+2025\\.04\\s+shop\\s+2$`, 'm'));
    expect(ls.stdout).toMatch(new RegExp(`^${empty.id}\\s+Empty\\s+-\\s+-\\s+0$`, 'm'));
    expect(get.stdout).toMatch(/^name\s+Checkout$/m);
    expect(get.stdout).toMatch(/^runtimeId\s+2025\.04$/m);
    expect(JSON.parse(getJson.stdout).environmentVariables).toEqual([
      { key: 'BASE_URL', value: 'https://shop.example.com', locked: false },
      { key: 'TOKEN', value: 'abc', locked: true },
    ]);
    expect(inGroup.code).toBe(0);
    const cart = JSON.parse(inGroup.stdout);
    expect(cart.groupId).toBe(checkoutId);

    const [busy, removed] = await Promise.all([
      vigil(['check-groups', 'rm', checkoutId], { env }),
      vigil(['check-groups', 'rm', empty.id, '--json'], { env }),
    ]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain(`check group ${checkoutId} still has 1 check(s); move or delete them first`);
    expect(busy.stdout).toBe('');
    expect(removed.code).toBe(0);
    expect(JSON.parse(removed.stdout)).toEqual({ deleted: empty.id });

    // Once its check is gone the group can go too.
    expect((await vigil(['checks', 'rm', cart.id], { env })).code).toBe(0);
    const rm = await vigil(['check-groups', 'rm', checkoutId], { env });
    expect(rm).toMatchObject({ code: 0, stdout: `Deleted check group ${checkoutId}\n` });
    const after = await vigil(['check-groups', 'ls', '--json'], { env });
    expect(JSON.parse(after.stdout)).toEqual([]);
  });

  it('create without --name is a usage error', async ({ expect }) => {
    const { env } = await ownerEnv();
    const run = await vigil(['check-groups', 'create', '--tag', 'x'], { env });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('A check group needs --name');
  });
});
