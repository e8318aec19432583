import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { numericId } from '../../apps/api/src/checkly/ids.ts';
import { checklyHarness, installChecklyCli, type ChecklyHarness } from './support.ts';

/**
 * `checkly checks|alert-channels|status-pages` (the real CLI, in a loopback-only namespace)
 * reading what was made through Vigil's own /v1, and deleting through the dialect.
 */
vi.setConfig({ testTimeout: 180_000 });
let vigil: TestVigil;
let owner: Awaited<ReturnType<typeof createAccount>>;
let checkly: ChecklyHarness;
const checkIds: string[] = [];
let groupId: string;
let channelId: string;
let pageId: string;

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  let last = await read();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`never happened; last ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await read();
  }
  return last;
}

beforeAll(async () => {
  const [cli, started] = await Promise.all([installChecklyCli(), startVigil()]);
  vigil = started;
  owner = await createAccount(vigil, 'team');
  groupId = (await owner.owner.post('/v1/check-groups', { name: 'Payments' })).body.id;
  for (let i = 0; i < 12; i++) {
    const created = await owner.owner.post('/v1/checks', {
      name: `Check ${String(i).padStart(2, '0')}`,
      checkType: 'API',
      tags: i % 2 ? ['odd'] : ['even'],
      groupId: i === 0 ? groupId : null,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    checkIds.push(created.body.id);
  }
  const result = (id: string, minutesAgo: number, failing: boolean) => ({
    id,
    accountId: owner.accountId,
    checkId: checkIds[0],
    checkType: 'API',
    startedAt: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
    runLocation: 'eu-west-1',
    hasFailures: failing,
    responseTime: 120,
    statusCode: failing ? 500 : 200,
    timings: { dns: 1, tcp: 2, firstByte: 50, download: 5, total: 120 },
  });
  const ingest = await vigil
    .as(vigil.ingestKey)
    .post('/v1/check-results', [
      result(randomUUID(), 3, false),
      result(randomUUID(), 2, false),
      result(randomUUID(), 1, true),
    ]);
  expect(ingest.body).toMatchObject({ accepted: 3 });
  const channel = await owner.owner.post('/v1/alert-channels', {
    type: 'EMAIL',
    config: { name: 'On call', address: 'oncall@example.com' },
  });
  expect(channel.status, JSON.stringify(channel.body)).toBe(201);
  channelId = channel.body.id;
  const page = await owner.owner.post('/v1/status-pages', {
    slug: `acme-${Date.now()}`,
    title: 'Acme status',
    checkIds: checkIds.slice(0, 2),
  });
  expect(page.status, JSON.stringify(page.body)).toBe(201);
  pageId = page.body.id;
  checkly = await checklyHarness(cli, vigil.url, { apiKey: owner.ownerKey, accountId: owner.accountId });
  await eventually(
    () => owner.owner.get(`/v1/check-statuses?checkId=${checkIds[0]}`),
    (r) => r.body[0]?.hasFailures === true,
  );
}, 600_000);
afterAll(async () => {
  await checkly?.close();
  await vigil?.stop();
});

const json = (run: { code: number; stdout: string; stderr: string }) => {
  expect(run.code, run.stderr + run.stdout).toBe(0);
  return JSON.parse(run.stdout);
};

describe('checkly checks', () => {
  it('list pages as Checkly does and reports the true total (Content-Range)', async () => {
    const first = json(await checkly.cli(['checks', 'list', '--limit', '5', '--output', 'json']));
    expect(first.pagination).toMatchObject({ page: 1, limit: 5, total: 12, totalPages: 3 });
    expect(first.data.map((c: { name: string }) => c.name)).toEqual([
      'Check 00',
      'Check 01',
      'Check 02',
      'Check 03',
      'Check 04',
    ]);
    // The group is named by its numeric id.
    expect(first.data[0].groupId).toBe(numericId(groupId));
    const third = json(await checkly.cli(['checks', 'list', '--limit', '5', '--page', '3', '--output', 'json']));
    expect(third.data.map((c: { name: string }) => c.name)).toEqual(['Check 10', 'Check 11']);
    const table = await checkly.cli(['checks', 'list']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('Check 00');
  });

  it('list filters by tag, search, type and status', async () => {
    const odd = json(await checkly.cli(['checks', 'list', '--tag', 'odd', '--output', 'json']));
    expect(odd.pagination.total).toBe(6);
    const search = json(await checkly.cli(['checks', 'list', '--search', 'check 1', '--output', 'json']));
    expect(search.data.map((c: { name: string }) => c.name)).toEqual(['Check 10', 'Check 11']);
    const failing = json(await checkly.cli(['checks', 'list', '--status', 'failing', '--output', 'json']));
    expect(failing.data.map((c: { id: string }) => c.id)).toEqual([checkIds[0]]);
    expect(failing.data[0].status).toMatchObject({ hasFailures: true });
    const browser = json(await checkly.cli(['checks', 'list', '--type', 'BROWSER', '--output', 'json']));
    expect(browser.pagination.total).toBe(0);
  });

  it('get shows the check, its status and its results', async () => {
    const got = json(await checkly.cli(['checks', 'get', checkIds[0]!, '--output', 'json']));
    expect(got.check).toMatchObject({ id: checkIds[0], name: 'Check 00', checkType: 'API' });
    expect(got.status).toMatchObject({ checkId: checkIds[0], hasFailures: true });
    expect(got.results).toHaveLength(3);
    expect(got.results[0]).toMatchObject({ checkId: checkIds[0], hasFailures: true, runLocation: 'eu-west-1' });
    const detail = await checkly.cli(['checks', 'get', checkIds[0]!]);
    expect(detail.code, detail.stderr).toBe(0);
    expect(detail.stdout).toContain('Check 00');
  });

  it('delete removes the check (read back through /v1); an unknown id fails', async () => {
    const id = checkIds.at(-1)!;
    const run = await checkly.cli(['checks', 'delete', id, '--force']);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    expect((await owner.owner.get(`/v1/checks/${id}`)).status).toBe(404);
    const again = await checkly.cli(['checks', 'delete', id, '--force']);
    expect(again.stdout + again.stderr).toContain('not found');
  });
});

describe('checkly alert-channels and status-pages', () => {
  it('alert-channels list and get use numeric ids', async () => {
    const list = json(await checkly.cli(['alert-channels', 'list', '--output', 'json']));
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ id: numericId(channelId), type: 'EMAIL' });
    const got = json(await checkly.cli(['alert-channels', 'get', String(numericId(channelId)), '--output', 'json']));
    expect(got).toMatchObject({ id: numericId(channelId), config: { address: 'oncall@example.com' } });
    const table = await checkly.cli(['alert-channels', 'list']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('oncall@example.com');
    const missing = await checkly.cli(['alert-channels', 'get', '12345']);
    expect(missing.code).not.toBe(0);
  });

  it('status-pages list and get show the page and its checks as services', async () => {
    const list = json(await checkly.cli(['status-pages', 'list', '--output', 'json']));
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ id: pageId, name: 'Acme status' });
    const got = json(await checkly.cli(['status-pages', 'get', pageId, '--output', 'json']));
    expect(got.cards[0].services.map((s: { name: string }) => s.name)).toEqual(['Check 00', 'Check 01']);
    const table = await checkly.cli(['status-pages', 'list']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('Acme status');
  });
});
