import { afterAll, beforeAll, describe, it, vi } from 'vitest';
import { startVigil, type TestVigil } from '#test-vigil';
import { ownerEnv as baseOwnerEnv, vigil } from './run.ts';

/**
 * `vigil maintenance-windows` (`mw`): the real binary against a Vigil started here. Times go in
 * with offsets and come back in UTC; update sends the whole window (PUT) with only the named
 * fields changed; usage mistakes exit 2 before any request and the API's refusals exit 1.
 */
let server: TestVigil;
vi.setConfig({ testTimeout: 240_000 });

beforeAll(async () => {
  server = await startVigil();
});
afterAll(async () => {
  await server?.stop();
});

function idOf(run: { stdout: string; stderr: string }): string {
  const id = /: ([0-9a-f-]{36})$/m.exec(run.stdout)?.[1];
  if (!id) throw new Error(`no id in ${JSON.stringify(run)}`);
  return id;
}

/** A whole minute this far from now, in UTC, as the API answers it. */
const minutesFromNow = (minutes: number) =>
  new Date(Math.floor(Date.now() / 60_000) * 60_000 + minutes * 60_000).toISOString();

describe.concurrent('maintenance-windows', () => {
  it('create with offsets stores UTC; ls shows when, coverage, pausing and activeNow; get; paging', async ({
    expect,
  }) => {
    const { env, account } = await baseOwnerEnv(server);
    const run = (...args: string[]) => vigil(args, { env });
    const checkId = (
      await run('checks', 'create', '--name', 'Orders API', '--type', 'API', '--get', 'id')
    ).stdout.trim();

    const weekly = await run(
      'maintenance-windows',
      'create',
      '--name',
      'Weekly deploy',
      '--tag',
      'shop,db',
      '--starts-at',
      '2036-12-01T23:00+01:00',
      '--duration',
      '30m',
      '--repeat-unit',
      'week',
    );
    expect(weekly.code, weekly.stderr).toBe(0);
    expect(weekly.stdout).toContain('Created maintenance window Weekly deploy: ');
    expect(weekly.stdout).toContain('  2036-12-01 22:00–22:30 UTC, every 1 week\n');
    const stored = await account.owner.get(`/v1/maintenance-windows/${idOf(weekly)}`);
    expect(stored.body).toMatchObject({
      name: 'Weekly deploy',
      tags: ['shop', 'db'],
      checkIds: [],
      startsAt: '2036-12-01T22:00:00.000Z',
      endsAt: '2036-12-01T22:30:00.000Z',
      repeatUnit: 'WEEK',
      repeatInterval: 1,
      repeatEndsAt: null,
      pauseRuns: true,
    });

    // In force now, by check id, letting runs happen; the offset form with a space and no colon.
    const start = minutesFromNow(-10);
    const quiet = await run(
      'mw',
      'create',
      '--name',
      'Migration',
      '--check',
      checkId,
      '--starts-at',
      start.replace('T', ' ').replace('.000Z', '+0000'),
      '--duration',
      '1h30m',
      '--no-pause-runs',
    );
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toContain('(runs continue, alerts paused)');
    const quietId = idOf(quiet);
    const quietStored = (await account.owner.get(`/v1/maintenance-windows/${quietId}`)).body;
    expect(quietStored).toMatchObject({ startsAt: start, checkIds: [checkId], pauseRuns: false, activeNow: true });
    expect(Date.parse(quietStored.endsAt) - Date.parse(start)).toBe(90 * 60_000);

    const ls = await run('mw', 'ls');
    expect(ls.code, ls.stderr).toBe(0);
    const [header, ...rows] = ls.stdout.trimEnd().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['ID', 'NAME', 'WHEN', 'COVERS', 'PAUSES', 'ACTIVE NOW']);
    expect(rows).toHaveLength(2);
    expect(rows[0]!.split(/\s{2,}/)).toEqual([
      idOf(weekly),
      'Weekly deploy',
      '2036-12-01 22:00–22:30 UTC, every 1 week',
      'tags shop, db',
      'runs',
      'no',
    ]);
    // Checks are shown by name; activeNow is the server's.
    expect(rows[1]!.split(/\s{2,}/).slice(3)).toEqual(['checks Orders API', 'alerts only', 'yes']);

    const json = JSON.parse((await run('mw', 'ls', '--json')).stdout) as Array<Record<string, unknown>>;
    expect(json.map((w) => w.name)).toEqual(['Weekly deploy', 'Migration']);
    const page = await run('mw', 'ls', '--limit', '1', '--page', '2');
    expect(page.stderr).toBe('2-2 of 2\n');
    expect(page.stdout).toContain('Migration');
    expect(page.stdout).not.toContain('Weekly deploy');

    const got = await run('mw', 'get', quietId);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(/^covers\s+checks Orders API$/m);
    expect(got.stdout).toMatch(/^pauses\s+alerts only$/m);
    expect(got.stdout).toMatch(new RegExp(`^startsAt\\s+${start}$`, 'm'));
    expect((await run('mw', 'get', quietId, '--get', 'activeNow')).stdout).toBe('true\n');
  });

  it('update changes only the fields named, keeps the length when moved, and drops a repeat', async ({ expect }) => {
    const { env, account } = await baseOwnerEnv(server);
    const run = (...args: string[]) => vigil(args, { env });
    const created = await run(
      'mw',
      'create',
      '--name',
      'Month end',
      '--tag',
      'billing',
      '--starts-at',
      '2027-01-31T20:00Z',
      '--ends-at',
      '2027-01-31T22:00Z',
      '--repeat-unit',
      'MONTH',
      '--repeat-ends-at',
      '2027-12-31T23:59+02:00',
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('2027-01-31 20:00–22:00 UTC, every 1 month until 2027-12-31 21:59 UTC');
    const id = idOf(created);
    const read = async () => (await account.owner.get(`/v1/maintenance-windows/${id}`)).body;
    const before = await read();

    const moved = await run('mw', 'update', id, '--starts-at', '2027-02-28T21:00+01:00');
    expect(moved.code, moved.stderr).toBe(0);
    expect(moved.stdout).toContain(`Updated maintenance window Month end: ${id}`);
    expect(await read()).toMatchObject({
      name: 'Month end',
      tags: ['billing'],
      startsAt: '2027-02-28T20:00:00.000Z',
      endsAt: '2027-02-28T22:00:00.000Z',
      repeatUnit: 'MONTH',
      repeatInterval: 1,
      repeatEndsAt: '2027-12-31T21:59:00.000Z',
      pauseRuns: true,
      createdAt: before.createdAt,
    });

    const edited = await run('mw', 'update', id, '--name', 'Billing close', '--duration', '45m', '--no-pause-runs');
    expect(edited.code, edited.stderr).toBe(0);
    expect(await read()).toMatchObject({
      name: 'Billing close',
      tags: ['billing'],
      startsAt: '2027-02-28T20:00:00.000Z',
      endsAt: '2027-02-28T20:45:00.000Z',
      repeatUnit: 'MONTH',
      pauseRuns: false,
    });

    const forever = await run('mw', 'update', id, '--no-repeat-ends-at', '--repeat-interval', '3');
    expect(forever.code, forever.stderr).toBe(0);
    expect(await read()).toMatchObject({ repeatUnit: 'MONTH', repeatInterval: 3, repeatEndsAt: null });

    const once = await run('mw', 'update', id, '--no-repeat', '--json');
    expect(once.code, once.stderr).toBe(0);
    expect(JSON.parse(once.stdout)).toMatchObject({ id, repeatUnit: null, repeatInterval: null, repeatEndsAt: null });
    expect(await read()).toMatchObject({ name: 'Billing close', pauseRuns: false, repeatUnit: null });

    // The API's refusal names the field, and nothing changes.
    const cleared = await run('mw', 'update', id, '--tag', '');
    expect(cleared.code).toBe(1);
    expect(cleared.stderr).toContain('tags: name at least one tag or one check id');
    expect((await read()).tags).toEqual(['billing']);

    const deleted = await run('mw', 'delete', id);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe(`Deleted maintenance window ${id}\n`);
    const gone = await run('mw', 'get', id);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/not found/);
  });

  it('usage mistakes exit 2 before any request; the API’s 400s exit 1 naming the field', async ({ expect }) => {
    const { env } = await baseOwnerEnv(server);
    const create = (...args: string[]) => vigil(['mw', 'create', '--name', 'X', ...args], { env });
    const runs = await Promise.all([
      create('--tag', 'a', '--starts-at', '2026-12-01T22:00', '--duration', '1h'),
      create('--tag', 'a', '--starts-at', '2026-02-30T22:00Z', '--duration', '1h'),
      create('--starts-at', '2026-12-01T22:00Z', '--duration', '1h'),
      create('--tag', 'a', '--starts-at', '2026-12-01T22:00Z', '--duration', '1h', '--ends-at', '2026-12-01T23:00Z'),
      create('--tag', 'a', '--starts-at', '2026-12-01T22:00Z', '--duration', 'soon'),
      create('--tag', 'a', '--starts-at', '2026-12-01T22:00Z', '--duration', '1h', '--repeat-unit', 'year'),
      create('--tag', 'a', '--starts-at', '2026-12-01T22:00Z', '--duration', '1h', '--repeat-interval', '2'),
      create('--tag', 'a', '--starts-at', '2026-12-01T22:00Z', '--duration', '2d', '--repeat-unit', 'day'),
      create('--tag', 'a', '--starts-at', '2026-12-01T22:00Z', '--ends-at', '2026-12-01T21:00Z'),
      create('--tag', 'a', '--starts-at', '2020-01-01T22:00Z', '--duration', '1h'),
    ]);
    expect(runs.map((r) => r.code)).toEqual([2, 2, 2, 2, 2, 2, 2, 1, 1, 0]);
    expect(runs[0]!.stderr).toContain('has no time zone: add Z for UTC or an offset such as +01:00');
    expect(runs[1]!.stderr).toContain('is not a real date and time');
    expect(runs[2]!.stderr).toContain('covers checks by --tag or --check');
    expect(runs[3]!.stderr).toContain('Give --ends-at or --duration, not both');
    expect(runs[4]!.stderr).toContain('expected a duration such as 30m');
    expect(runs[5]!.stderr).toContain('expected one of DAY, WEEK, MONTH');
    expect(runs[6]!.stderr).toContain('--repeat-interval counts in --repeat-unit');
    expect(runs[7]!.stderr).toContain('endsAt: a window that repeats every 1 DAY may not last longer than that');
    expect(runs[8]!.stderr).toContain('endsAt: must be after startsAt');
    // A window wholly in the past is accepted, with a warning: it is almost always a typo.
    expect(runs[9]!.stderr).toContain('Warning: this window is over');
    const help = await vigil(['maintenance-windows', 'create', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Example:');
    expect(help.stdout).toContain('--no-pause-runs');
  });
});
