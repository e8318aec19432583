import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '#test-processes';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { decodePng, zipEntries } from '#test-support';

/** A page whose heading is not what the script expects, and an API answering 500. */
async function startTarget() {
  const server: Server = createServer((req, res) => {
    if (req.url === '/api') {
      res.statusCode = 500;
      res.end('{"error":"orders database unreachable"}');
      return;
    }
    res.setHeader('content-type', 'text/html');
    res.end(
      '<body style="margin:0"><h1>Down for maintenance</h1><div style="height:300px;background:red"></div></body>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const PLAYWRIGHT = (url: string) => `
import { test, expect } from '@playwright/test';
test('shop front', async ({ page }) => {
  await page.goto('${url}/');
  await expect(page.locator('h1')).toHaveText('Shop', { timeout: 1000 });
});`;

const MULTI_STEP = (url: string) => `
import { test, expect } from '@playwright/test';
test('orders api', async ({ request }) => {
  expect((await request.get('${url}/api')).ok()).toBe(true);
});`;

/** Script checks keep artifacts through the whole system: runner, store, result, API route and roles. */
describe('script-check artifacts through the API', () => {
  let vigil: TestVigil;
  let target: Awaited<ReturnType<typeof startTarget>>;
  beforeAll(async () => {
    target = await startTarget();
    vigil = await startVigil({ env: { VIGIL_RUNNER_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(async () => {
    await vigil?.stop();
    await target?.close();
  });

  async function triggered(a: Awaited<ReturnType<typeof createAccount>>, body: Record<string, unknown>) {
    const created = await a.owner.post('/v1/checks', { activated: false, ...body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const checkId = created.body.id as string;
    const run = await a.owner.post(`/v1/checks/${checkId}/trigger`);
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    const result = run.body.results[0].result;
    expect(result.hasFailures).toBe(true);
    const stored = await eventually(
      () => a.owner.get(`/v1/check-results/${checkId}/${result.id}`),
      (response) => response.status === 200,
      30_000,
      250,
    );
    const url = (id: string) => `${vigil.url}/v1/check-results/${checkId}/${result.id}/artifacts/${id}`;
    const fetchAs = (key: string, id: string) =>
      fetch(url(id), { headers: { authorization: `Bearer ${key}`, 'x-service-account': a.accountId } });
    return { artifacts: stored.body.artifacts as { id: string; kind: string; sha256: string }[], fetchAs, checkId };
  }

  it('a failed PLAYWRIGHT run keeps a screenshot of the page and its trace; the trace is ADMIN/OWNER only', async () => {
    const a = await createAccount(vigil);
    const { artifacts, fetchAs } = await triggered(a, {
      name: 'shop front',
      checkType: 'PLAYWRIGHT',
      script: PLAYWRIGHT(target.url),
    });
    expect(artifacts.map((artifact) => artifact.kind)).toEqual(['screenshot', 'trace']);
    const [screenshot, trace] = artifacts;
    const png = Buffer.from(await (await fetchAs(a.ownerKey, screenshot!.id)).arrayBuffer());
    expect(createHash('sha256').update(png).digest('hex')).toBe(screenshot!.sha256);
    expect(decodePng(png).width).toBe(1280);
    const zip = await fetchAs(a.ownerKey, trace!.id);
    expect(zip.status).toBe(200);
    expect(zipEntries(Buffer.from(await zip.arrayBuffer()))).toContain('trace.trace');

    const reader = await a.owner.post('/v1/users', { email: `reader-${Date.now()}@example.com`, role: 'READ_ONLY' });
    expect(reader.status, JSON.stringify(reader.body)).toBe(201);
    expect((await fetchAs(reader.body.apiKey.key, screenshot!.id)).status).toBe(200);
    expect((await fetchAs(reader.body.apiKey.key, trace!.id)).status).toBe(403);
  });

  it('a failed MULTI_STEP run keeps the body of its failing request', async () => {
    const a = await createAccount(vigil);
    const { artifacts, fetchAs } = await triggered(a, {
      name: 'orders api',
      checkType: 'MULTI_STEP',
      script: MULTI_STEP(target.url),
    });
    expect(artifacts.map((artifact) => artifact.kind)).toEqual(['response-body']);
    const body = await fetchAs(a.ownerKey, artifacts[0]!.id);
    expect(body.status).toBe(200);
    expect(await body.text()).toBe('{"error":"orders database unreachable"}');
  });

  it('a script check says when it keeps artifacts and whether its trace is shared', async () => {
    const a = await createAccount(vigil);
    const never = await triggered(a, {
      name: 'shop front, no evidence',
      checkType: 'PLAYWRIGHT',
      script: PLAYWRIGHT(target.url),
      artifacts: 'NEVER',
    });
    expect(never.artifacts ?? []).toEqual([]);
    const quiet = await triggered(a, {
      name: 'orders api, no evidence',
      checkType: 'MULTI_STEP',
      script: MULTI_STEP(target.url),
      artifacts: 'NEVER',
    });
    expect(quiet.artifacts ?? []).toEqual([]);

    const shared = await triggered(a, {
      name: 'shop front, shared',
      checkType: 'PLAYWRIGHT',
      script: PLAYWRIGHT(target.url),
      shareArtifacts: true,
    });
    const trace = shared.artifacts.find((artifact) => artifact.kind === 'trace');
    expect(trace).toBeDefined();
    const reader = await a.owner.post('/v1/users', { email: `shared-${Date.now()}@example.com`, role: 'READ_ONLY' });
    expect((await shared.fetchAs(reader.body.apiKey.key, trace!.id)).status).toBe(200);
    const read = await a.owner.get(`/v1/checks/${shared.checkId}`);
    expect(read.body).toMatchObject({ shareArtifacts: true });
  });
});
