import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { startVigil, type TestVigil } from '#test-vigil';
import { ownerEnv as baseOwnerEnv, vigil } from './run.ts';

/**
 * Issue 23, items 2 and 9: a heartbeat's schedule in `checks ls|get`, `results ls|get`,
 * `status-pages`, `api --get`, and response times in whole milliseconds. The real binary against
 * a Vigil started here.
 */
let server: TestVigil;
vi.setConfig({ testTimeout: 240_000 });

beforeAll(async () => {
  server = await startVigil();
});
afterAll(async () => {
  await server?.stop();
});

const ownerEnv = () => baseOwnerEnv(server, { VIGIL_INGEST_KEY: server.ingestKey });

describe.concurrent('CLI reads', () => {
  it('checks ls and get show a heartbeat period and grace, not the frequency it never runs on', async ({ expect }) => {
    const { account, env } = await ownerEnv();
    const beat = await vigil(
      [
        'checks',
        'create',
        '--name',
        'Backup',
        '--type',
        'HEARTBEAT',
        '--heartbeat-period',
        '1d',
        '--heartbeat-grace',
        '30m',
        '--get',
        'id',
      ],
      { env },
    );
    expect(beat.code, beat.stderr).toBe(0);
    const api = await account.owner.post<{ id: string }>('/v1/checks', { name: 'Api', checkType: 'API', frequency: 5 });
    const ls = await vigil(['checks', 'ls'], { env });
    expect(ls.code, ls.stderr).toBe(0);
    // The row from the name on: the id before it is a UUID, which may hold any digits.
    const row = (name: string) => {
      const line = ls.stdout.split('\n').find((l) => l.includes(` ${name} `)) ?? '';
      return line.slice(line.indexOf(` ${name} `));
    };
    expect(row('Backup')).toContain('1 d, grace 30 min');
    expect(row('Backup')).not.toMatch(/\b10\b/);
    expect(row('Api')).toContain('5 min');
    const get = await vigil(['checks', 'get', beat.stdout.trim()], { env });
    expect(get.stdout).toMatch(/^frequency\s+every 1 d, grace 30 min$/m);
    expect((await vigil(['checks', 'get', api.body.id], { env })).stdout).toMatch(/^frequency\s+every 5 min$/m);
  });

  it('results ls pages and filters, results get shows one run; times are whole milliseconds', async ({ expect }) => {
    const { account, env } = await ownerEnv();
    const checkId = (await account.owner.post<{ id: string }>('/v1/checks', { name: 'Orders', checkType: 'API' })).body
      .id;
    const now = Date.now();
    const ids = Array.from({ length: 5 }, () => randomUUID());
    const lines = ids.map((id, i) =>
      JSON.stringify({
        id,
        accountId: account.accountId,
        checkId,
        checkType: 'API',
        // ids[0] is the newest run.
        startedAt: new Date(now - (i + 1) * 60_000).toISOString(),
        runLocation: i === 4 ? 'us-east-1' : 'eu-west-1',
        hasFailures: i === 1,
        responseTime: 9.988317999999708 + i,
        statusCode: i === 1 ? 500 : 200,
      }),
    );
    const sent = await vigil(['results', 'send', '-'], { env, input: lines.join('\n') + '\n' });
    expect(sent.code, sent.stderr).toBe(0);

    const all = await vigil(['results', 'ls', checkId], { env });
    expect(all.code, all.stderr).toBe(0);
    const rows = all.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^ID\s+STARTED\s+LOCATION\s+RESULT\s+TIME\s+CODE\s+ERROR$/);
    expect(rows.slice(1).map((line) => line.split(/\s+/)[0])).toEqual(ids);
    expect(rows[1]).toMatch(/\bpassed\s+10 ms\s+200\b/);
    expect(all.stdout).not.toContain('9.98');

    const [page2, failed, us, json] = await Promise.all([
      vigil(['results', 'ls', checkId, '--limit', '2', '--page', '2'], { env }),
      vigil(['results', 'ls', checkId, '--status', 'failed'], { env }),
      vigil(['results', 'ls', checkId, '--location', 'us-east-1', '--from', new Date(now - 3_600_000).toISOString()], {
        env,
      }),
      vigil(['results', 'ls', checkId, '--json', '--limit', '1'], { env }),
    ]);
    expect(
      page2.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split(/\s+/)[0]),
    ).toEqual(ids.slice(2, 4));
    expect(page2.stderr).toContain('next: --page 3');
    expect(
      failed.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split(/\s+/)[0]),
    ).toEqual([ids[1]]);
    expect(
      us.stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split(/\s+/)[0]),
    ).toEqual([ids[4]]);
    expect(JSON.parse(json.stdout)).toMatchObject([{ id: ids[0], responseTime: 10 }]);

    const one = await vigil(['results', 'get', checkId, ids[1]!], { env });
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^result\s+failed$/m);
    expect(one.stdout).toMatch(/^responseTime\s+11 ms$/m);
    expect((await vigil(['results', 'get', checkId, ids[1]!, '--get', 'statusCode'], { env })).stdout).toBe('500\n');
    const missing = await vigil(['results', 'get', checkId, randomUUID()], { env });
    expect(missing.code).not.toBe(0);
  });

  it('api --get prints one field of the answer', async ({ expect }) => {
    const { account, env } = await ownerEnv();
    const id = await vigil(['api', 'GET', '/v1/accounts/me', '--get', 'id'], { env });
    expect(id).toMatchObject({ code: 0, stdout: `${account.accountId}\n` });
    const missing = await vigil(['api', 'GET', '/v1/accounts/me', '--get', 'nope'], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--get nope: the result has no such field');
  });

  it('status-pages create, ls, get, update (one field, the rest kept), delete', async ({ expect }) => {
    const { account, env } = await ownerEnv();
    const checkId = (await account.owner.post<{ id: string }>('/v1/checks', { name: 'Shop', checkType: 'API' })).body
      .id;
    const slug = `acme-${randomUUID().slice(0, 8)}`;
    const created = await vigil(
      ['status-pages', 'create', '--slug', slug, '--title', 'Acme status', '--check', checkId, '--get', 'id'],
      { env },
    );
    expect(created.code, created.stderr).toBe(0);
    const id = created.stdout.trim();
    const ls = await vigil(['status-pages', 'ls'], { env });
    expect(ls.stdout).toMatch(
      new RegExp(`^${id}\\s+${slug}\\s+Acme status\\s+1\\s+${server.url}/status/${slug}$`, 'm'),
    );

    const updated = await vigil(['status-pages', 'update', id, '--title', 'Acme platform', '--json'], { env });
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ id, slug, title: 'Acme platform', checkIds: [checkId] });
    const got = await vigil(['status-pages', 'get', id], { env });
    expect(got.stdout).toMatch(/^title\s+Acme platform$/m);
    expect(got.stdout).toContain(`${server.url}/status/${slug}`);
    const page = await fetch(`${server.url}/status/${slug}`);
    expect(page.status).toBe(200);

    const noTitle = await vigil(['status-pages', 'create', '--slug', `${slug}-2`], { env });
    expect(noTitle.code).toBe(2);
    const deleted = await vigil(['status-pages', 'delete', id], { env });
    expect(deleted).toMatchObject({ code: 0, stdout: `Deleted status page ${id}\n` });
    expect((await vigil(['status-pages', 'get', id], { env })).code).not.toBe(0);
  });
});
