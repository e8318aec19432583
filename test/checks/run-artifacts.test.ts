import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFilesystemArtifactStore, keepArtifacts, sweepExpiredOnce } from '#artifacts';
import { checkResultSchema } from '#domain';
import { createDirectSink } from '#pipeline';
import { eventually } from '#test-processes';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { decodePng, zipEntries } from '#test-support';
import { tempDir, userEnv, vigil as cli } from '../cli/run.ts';

/** A page that answers 503 with a red block: the failure the on-call engineer wants to see. */
async function startFailingPage() {
  const server: Server = createServer((_req, res) => {
    res.statusCode = 503;
    res.setHeader('content-type', 'text/html');
    res.end(
      '<body style="margin:0"><h1>Down for maintenance</h1><div style="height:300px;background:red"></div></body>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function bytes(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

describe('run artifacts through the API (embedded: files under DATA_DIR/artifacts)', () => {
  let vigil: TestVigil;
  let page: Awaited<ReturnType<typeof startFailingPage>>;
  beforeAll(async () => {
    page = await startFailingPage();
    vigil = await startVigil({ env: { VIGIL_ALLOW_PRIVATE_TARGETS: 'true' } });
  });
  afterAll(async () => {
    await vigil?.stop();
    await page?.close();
  });

  it('a failed BROWSER run keeps its screenshot and trace, named in its result and streamed by role and tenant', async () => {
    const a = await createAccount(vigil);
    const created = await a.owner.post('/v1/checks', {
      name: 'shop front',
      checkType: 'BROWSER',
      activated: false,
      browser: { url: page.url },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const checkId = created.body.id as string;
    const triggered = await a.owner.post(`/v1/checks/${checkId}/trigger`);
    expect(triggered.status, JSON.stringify(triggered.body)).toBe(200);
    const result = triggered.body.results[0].result;
    expect(result.hasFailures).toBe(true);
    const kinds = (result.artifacts ?? []).map((artifact: { kind: string }) => artifact.kind);
    expect(kinds).toEqual(['screenshot', 'trace']);

    const run = await eventually(
      () => a.owner.get(`/v1/check-results/${checkId}/${result.id}`),
      (response) => response.status === 200,
      30_000,
      250,
    );
    expect(run.body.artifacts).toHaveLength(2);
    expect(run.body.artifacts.every((artifact: { expired: boolean }) => artifact.expired === false)).toBe(true);
    const [screenshot, trace] = run.body.artifacts as { id: string; sha256: string; bytes: number }[];
    const url = (id: string) => `${vigil.url}/v1/check-results/${checkId}/${result.id}/artifacts/${id}`;
    const fetchAs = (key: string, account: string, id: string) =>
      fetch(url(id), { headers: { authorization: `Bearer ${key}`, 'x-service-account': account } });

    const png = await fetchAs(a.ownerKey, a.accountId, screenshot!.id);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const pngBytes = await bytes(png);
    expect(pngBytes.length).toBe(screenshot!.bytes);
    expect(createHash('sha256').update(pngBytes).digest('hex')).toBe(screenshot!.sha256);
    expect(decodePng(pngBytes).width).toBe(1280);

    const zip = await fetchAs(a.ownerKey, a.accountId, trace!.id);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-disposition')).toContain('trace.zip');
    expect(zipEntries(await bytes(zip))).toContain('trace.trace');

    // vigil results get … --artifacts <dir>: both files, checked against their sha256, and how to open the trace.
    const dir = join(tempDir(), 'evidence');
    const env = userEnv(vigil.url, tempDir(), { VIGIL_API_KEY: a.ownerKey });
    const got = await cli(['results', 'get', checkId, result.id, '--artifacts', dir], { env });
    expect(got.code, got.stderr).toBe(0);
    expect((await readdir(dir)).sort()).toEqual(['screenshot.png', 'trace.zip']);
    expect(got.stderr).toContain(`npx playwright show-trace "${join(dir, 'trace.zip')}"`);
    expect(decodePng(await readFile(join(dir, 'screenshot.png'))).width).toBe(1280);

    // RESULT_LINK: JSON to an API client, the console's run view to a browser.
    const link = `${vigil.url}/v1/check-results/${checkId}/${result.id}`;
    const browserVisit = await fetch(link, {
      headers: { accept: 'text/html,application/xhtml+xml' },
      redirect: 'manual',
    });
    expect(browserVisit.status).toBe(302);
    expect(browserVisit.headers.get('location')).toBe(`/checks/${checkId}?run=${result.id}`);
    const apiRead = await fetch(link, { headers: { authorization: `Bearer ${a.ownerKey}`, accept: 'text/html' } });
    expect(apiRead.headers.get('content-type')).toContain('application/json');

    // A READ_ONLY member sees the screenshot, not the trace (it may hold what was typed into the page).
    const reader = await a.owner.post('/v1/users', { email: `reader-${Date.now()}@example.com`, role: 'READ_ONLY' });
    expect(reader.status, JSON.stringify(reader.body)).toBe(201);
    expect((await fetchAs(reader.body.apiKey.key, a.accountId, screenshot!.id)).status).toBe(200);
    expect((await fetchAs(reader.body.apiKey.key, a.accountId, trace!.id)).status).toBe(403);

    // Another tenant: exactly like an unknown id, whether it names its own account or ours.
    const b = await createAccount(vigil);
    const foreign = await fetchAs(b.ownerKey, b.accountId, screenshot!.id);
    expect(foreign.status).toBe(404);
    expect((await fetchAs(b.ownerKey, a.accountId, screenshot!.id)).status).toBe(403);
    const unknown = await fetchAs(a.ownerKey, a.accountId, '00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(await foreign.json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('a failing check with artifacts NEVER keeps none', async () => {
    const a = await createAccount(vigil);
    const created = await a.owner.post('/v1/checks', {
      name: 'no evidence',
      checkType: 'BROWSER',
      activated: false,
      browser: { url: page.url, artifacts: 'NEVER' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const triggered = await a.owner.post(`/v1/checks/${created.body.id}/trigger`);
    expect(triggered.body.results[0].result.hasFailures).toBe(true);
    expect(triggered.body.results[0].result.artifacts).toBeUndefined();
  });

  it('retention deletes expired artifacts in bounded batches; the result still reads, its artifacts marked expired', async () => {
    const a = await createAccount(vigil);
    const created = await a.owner.post('/v1/checks', {
      name: 'old evidence',
      checkType: 'BROWSER',
      activated: false,
      browser: { url: page.url },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const checkId = created.body.id as string;
    const root = join(vigil.dataDir, 'artifacts');
    const store = createFilesystemArtifactStore(root);
    const run = (id: string, daysAgo: number) => ({
      id,
      accountId: a.accountId,
      checkId,
      startedAt: new Date(Date.now() - daysAgo * 86_400_000).toISOString(),
    });
    const old = run(crypto.randomUUID(), 40);
    const fresh = run(crypto.randomUUID(), 0);
    const files = [0, 1, 2].map((i) => ({
      kind: 'response-body' as const,
      contentType: 'text/plain',
      body: Buffer.from(`body ${i}`),
    }));
    const results = [];
    for (const r of [old, fresh]) {
      const artifacts = await keepArtifacts(store, r, files);
      results.push({ ...r, checkType: 'BROWSER', runLocation: 'local', hasFailures: true, responseTime: 1, artifacts });
    }
    // Through the runner's own sink: a producer's POST /v1/check-results may not name artifacts.
    const { analytics, bus, topics } = vigil.running.platform;
    await createDirectSink(analytics!, bus!, topics.checkResults).accept(
      results.map((result) => checkResultSchema.parse(result)),
    );
    const count = async () =>
      (await store.listBefore('2100-01-01', 1000)).filter((key) => key.includes(checkId)).length;
    expect(await count()).toBe(6);

    // Bounded batches: two at a time, until none is left of the expired day.
    const deleted: number[] = [];
    for (
      let n = await sweepExpiredOnce(store, 30, new Date(), 2);
      n > 0;
      n = await sweepExpiredOnce(store, 30, new Date(), 2)
    )
      deleted.push(n);
    expect(deleted.every((n) => n <= 2)).toBe(true);
    expect(await count()).toBe(3);
    expect(await readdir(root)).not.toContain(old.startedAt.slice(0, 10));

    const shown = await eventually(
      () => a.owner.get(`/v1/check-results/${checkId}/${old.id}`),
      (response) => response.status === 200,
      30_000,
      250,
    );
    expect(shown.body.artifacts).toHaveLength(3);
    expect(shown.body.artifacts.every((artifact: { expired: boolean }) => artifact.expired)).toBe(true);
    const gone = await a.owner.get(`/v1/check-results/${checkId}/${old.id}/artifacts/${shown.body.artifacts[0].id}`);
    expect(gone.status).toBe(404);
    expect(gone.body.message).toContain('expired');
    const kept = await eventually(
      () => a.owner.get(`/v1/check-results/${checkId}/${fresh.id}`),
      (response) => response.status === 200,
      30_000,
      250,
    );
    expect(kept.body.artifacts.every((artifact: { expired: boolean }) => !artifact.expired)).toBe(true);
    const body = await a.owner.get(`/v1/check-results/${checkId}/${fresh.id}/artifacts/${kept.body.artifacts[2].id}`);
    expect(body.status).toBe(200);
  });
});
