import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLogger } from '#core';
import { runResultId } from '#scheduling';
import { eventually } from '#test-processes';
import { createAccount, startVigil, type ApiClient, type TestVigil } from '#test-vigil';
import { createRunnerScripts, startAgent, type Agent, type RunnerScripts } from '../../apps/runner/index.ts';

/**
 * Agents of private locations against the whole standalone process: they lease over HTTP, run the
 * checks with their secrets, post results; the in-process runner (location "local") never runs them.
 */
describe('private-location agents (embedded)', () => {
  let vigil: TestVigil;
  let target: Server;
  let targetUrl: string;
  const seen: IncomingHttpHeaders[] = [];
  const agents: Agent[] = [];
  const log = createLogger({ level: 'silent' });
  const runtimesEnv = inject('runtimes');
  let scripts: RunnerScripts | undefined;

  beforeAll(async () => {
    target = createServer((req, res) => {
      seen.push(req.headers);
      res.end('ok');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    // Test scale: a location is UNAVAILABLE after 3 s without an agent (10 minutes by default).
    vigil = await startVigil({ env: { VIGIL_PRIVATE_LOCATION_UNAVAILABLE_MS: '3000' } });
  }, 60_000);
  afterAll(async () => {
    for (const agent of agents) await agent.stop();
    await scripts?.close();
    await vigil?.stop();
    await new Promise((resolve) => target?.close(resolve));
  });

  const agentWith = (key: string, options: { allowPrivate?: boolean; scripts?: RunnerScripts } = {}) => {
    const agent = startAgent({
      log,
      scripts: options.scripts?.scripts,
      settings: {
        apiUrl: vigil.url,
        key,
        concurrency: 5,
        allowPrivate: options.allowPrivate ?? true,
        pollWaitMs: 1_000,
        version: 'test',
        drainMs: 1_000,
      },
    });
    agents.push(agent);
    return agent;
  };

  async function location(owner: ApiClient, slugName: string) {
    const created = await owner.post('/v1/private-locations', { name: slugName, slugName });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const key = await owner.post(`/v1/private-locations/${created.body.id}/keys`);
    return { id: created.body.id as string, key: key.body.rawKey as string, keyId: key.body.id as string };
  }

  const results = async (owner: ApiClient, checkId: string) =>
    (await owner.get(`/v1/check-results/${checkId}?limit=100`)).body.items as {
      id: string;
      runLocation: string;
      startedAt: string;
      hasFailures: boolean;
      errorMessage: string | null;
    }[];

  it('two agents run a check once per window, with its secret, and the cluster runner never runs it', async () => {
    const { owner } = await createAccount(vigil);
    const office = await location(owner, 'office');
    expect((await owner.post('/v1/variables', { key: 'TOKEN', value: 's3cret-value', secret: true })).status).toBe(201);
    const check = await owner.post('/v1/checks', {
      checkType: 'API',
      name: 'intranet',
      frequency: 1,
      locations: ['office'],
      request: { method: 'GET', url: `${targetUrl}/office`, headers: [{ key: 'x-token', value: '{{TOKEN}}' }] },
    });
    expect(check.status, JSON.stringify(check.body)).toBe(201);
    agentWith(office.key);
    agentWith(office.key);

    const runs = await eventually(
      () => results(owner, check.body.id),
      (items) => items.length > 0,
      20_000,
    );
    expect(runs[0]).toMatchObject({ runLocation: 'office', hasFailures: false });
    const window = Math.floor(Date.parse(runs[0]!.startedAt) / 60_000) * 60_000;
    expect(runs[0]!.id).toBe(runResultId(check.body.id, 'office', window));
    expect(seen.some((headers) => headers['x-token'] === 's3cret-value')).toBe(true);
    // One window, one run, though two agents poll; and nothing from the runners' location.
    expect(new Set(runs.map((r) => r.id)).size).toBe(runs.length);
    expect(runs.every((r) => r.runLocation === 'office')).toBe(true);

    const status = (await owner.get(`/v1/private-locations/${office.id}`)).body;
    expect(status).toMatchObject({ status: 'AVAILABLE', agentCount: 2 });
    expect(status.agents[0]).toMatchObject({ version: 'test' });
  }, 60_000);

  it("a group lists a private location: its checks without locations of their own run there; a check's own win", async () => {
    const { owner } = await createAccount(vigil);
    const branch = await location(owner, 'branch');
    // Unknown and another account's slugs are 400s naming the field, as for checks.
    const unknown = await owner.post('/v1/check-groups', { name: 'g', locations: ['nowhere'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toMatch(/^locations\[0\]: unknown location "nowhere"/);
    const stranger = await createAccount(vigil);
    await location(stranger.owner, 'their-branch');
    expect((await owner.post('/v1/check-groups', { name: 'g', locations: ['their-branch'] })).status).toBe(400);

    const group = await owner.post('/v1/check-groups', { name: 'branch checks', locations: ['branch'] });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    expect(group.body.locations).toEqual(['branch']);
    expect((await owner.get(`/v1/check-groups/${group.body.id}`)).body.locations).toEqual(['branch']);
    const inherits = await owner.post('/v1/checks', {
      checkType: 'API',
      name: 'inherits',
      frequency: 1,
      groupId: group.body.id,
      request: { method: 'GET', url: `${targetUrl}/inherits` },
    });
    const own = await owner.post('/v1/checks', {
      checkType: 'API',
      name: 'own',
      frequency: 1,
      groupId: group.body.id,
      locations: ['local'],
      request: { method: 'GET', url: `${targetUrl}/own` },
    });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    agentWith(branch.key);
    const runs = await eventually(
      () => results(owner, inherits.body.id),
      (items) => items.length > 0,
      20_000,
    );
    expect(runs.every((r) => r.runLocation === 'branch')).toBe(true);
    // The group's slug is in use: renaming it would strand the group's checks.
    const renamed = await owner.put(`/v1/private-locations/${branch.id}`, { name: 'b', slugName: 'branch-2' });
    expect(renamed.status).toBe(409);
    // The check with its own locations never runs at the group's.
    expect((await results(owner, own.body.id)).filter((r) => r.runLocation === 'branch')).toEqual([]);
  }, 60_000);

  it("/openapi.json does not refuse a private slug in a check's or a group's locations", async () => {
    const document = (await fetch(`${vigil.url}/openapi.json`).then((r) => r.json())) as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>;
      components?: { schemas?: Record<string, unknown> };
    };
    const bodies = ['/v1/checks', '/v1/check-groups'].map((path) => document.paths[path]!.post!.requestBody!.content);
    const items: { enum?: unknown; pattern?: string; examples?: string[] }[] = [];
    const visit = (node: unknown): void => {
      if (typeof node !== 'object' || node === null) return;
      const locations = (node as { properties?: { locations?: { items?: (typeof items)[number] } } }).properties
        ?.locations?.items;
      if (locations) items.push(locations);
      Object.values(node).forEach(visit);
    };
    visit(bodies);
    expect(items.length).toBeGreaterThanOrEqual(2);
    for (const item of items) {
      expect(item.enum).toBeUndefined();
      expect(new RegExp(item.pattern!).test('office-berlin')).toBe(true);
      expect(item.examples!.length).toBeGreaterThan(0);
    }
  });

  it('with the address policy enforced, an agent refuses a private target', async () => {
    const { owner } = await createAccount(vigil);
    const strict = await location(owner, 'strict');
    const check = await owner.post('/v1/checks', {
      checkType: 'API',
      name: 'loopback',
      locations: ['strict'],
      request: { method: 'GET', url: `${targetUrl}/strict` },
    });
    agentWith(strict.key, { allowPrivate: false });
    const [run] = await eventually(
      () => results(owner, check.body.id),
      (items) => items.length > 0,
      20_000,
    );
    expect(run!.hasFailures).toBe(true);
    expect(run!.errorMessage).toMatch(/private|loopback|not allowed/i);
  }, 60_000);

  it('a revoked key stops its agent within one poll; a deleted location stops the other', async () => {
    const { owner } = await createAccount(vigil);
    const lab = await location(owner, 'lab');
    const agent = agentWith(lab.key);
    await eventually(
      async () => (await owner.get(`/v1/private-locations/${lab.id}`)).body.agentCount,
      (count) => count === 1,
      10_000,
    );
    expect((await owner.delete(`/v1/private-locations/${lab.id}/keys/${lab.keyId}`)).status).toBe(204);
    const stopped = await Promise.race([agent.stopped, new Promise((r) => setTimeout(() => r('timeout'), 5_000))]);
    expect(stopped).toMatchObject({ reason: expect.stringMatching(/refused the agent key \(401\)/) });

    const other = await location(owner, 'lab-2');
    const second = agentWith(other.key);
    expect((await owner.delete(`/v1/private-locations/${other.id}`)).status).toBe(204);
    const ended = await Promise.race([second.stopped, new Promise((r) => setTimeout(() => r('timeout'), 5_000))]);
    expect(ended).toMatchObject({ reason: expect.stringMatching(/401/) });
  }, 60_000);

  it('without agents a location turns UNAVAILABLE, its check gets no failing results, and an agent brings it back', async () => {
    const { owner } = await createAccount(vigil);
    const dc = await location(owner, 'dc');
    const check = await owner.post('/v1/checks', {
      checkType: 'API',
      name: 'dc',
      frequency: 1,
      locations: ['dc'],
      request: { method: 'GET', url: `${targetUrl}/dc` },
    });
    const first = agentWith(dc.key);
    await eventually(
      () => results(owner, check.body.id),
      (items) => items.length === 1,
      20_000,
    );
    await first.stop();
    const dark = await eventually(
      async () => (await owner.get(`/v1/private-locations/${dc.id}`)).body,
      (body) => body.status === 'UNAVAILABLE',
      10_000,
    );
    expect(dark).toMatchObject({ agentCount: 0, agents: [expect.objectContaining({ version: 'test' })] });
    // Nobody runs the location's checks meanwhile, and nothing counts them as failing: the gap is no data.
    expect((await results(owner, check.body.id)).map((r) => r.hasFailures)).toEqual([false]);

    agentWith(dc.key);
    await eventually(
      async () => (await owner.get(`/v1/private-locations/${dc.id}`)).body,
      (body) => body.status === 'AVAILABLE' && body.agentCount === 1,
      10_000,
    );
  }, 60_000);

  it('runs a MULTI_STEP script in the same sandbox as the runners, with its secret in process.env', async () => {
    const runtimeId = 'installed' in runtimesEnv ? runtimesEnv.installed[0] : undefined;
    if (!runtimeId) throw new Error('no runtime is installed');
    scripts = createRunnerScripts({
      runtimesDir: 'root' in runtimesEnv ? runtimesEnv.root : undefined,
      chromiumPath: undefined,
      logger: log,
    });
    const { owner } = await createAccount(vigil);
    const lab = await location(owner, 'script-lab');
    await owner.post('/v1/variables', { key: 'SCRIPT_TOKEN', value: 'script-secret', secret: true });
    const check = await owner.post('/v1/checks', {
      checkType: 'MULTI_STEP',
      name: 'script at a private location',
      locations: ['script-lab'],
      runtimeId,
      script: `import { test, expect } from '@playwright/test';
test('token', async () => { await test.step('reads it', async () => expect(process.env.SCRIPT_TOKEN).toBe('script-secret')); });`,
    });
    expect(check.status, JSON.stringify(check.body)).toBe(201);
    agentWith(lab.key, { scripts });
    const [run] = await eventually(
      () => results(owner, check.body.id),
      (items) => items.length > 0,
      60_000,
    );
    expect(run).toMatchObject({ runLocation: 'script-lab', hasFailures: false });
  }, 90_000);

  it('agent routes take only location keys; a location key opens nothing else', async () => {
    const { owner, ownerKey, accountId } = await createAccount(vigil);
    const vpc = await location(owner, 'vpc');
    const lease = (key: string | null) =>
      vigil.as(key).post('/v1/agent/leases', { max: 0, waitMs: 0 }, { 'x-vigil-agent-id': 'probe' });
    expect((await lease(vpc.key)).status).toBe(200);
    expect((await lease(ownerKey)).status).toBe(403);
    expect((await lease(null)).status).toBe(401);
    expect((await lease(`pl_${'x'.repeat(43)}`)).status).toBe(401);
    const agentClient = vigil.as(vpc.key, accountId);
    for (const path of ['/v1/checks', '/v1/variables', `/v1/private-locations/${vpc.id}`, '/v1/analytics/metrics'])
      expect([401, 403, 404], path).toContain((await agentClient.get(path)).status);
  });
});
