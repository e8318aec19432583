import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '#core';
import { eventually, freePort, startApp, type AppProcess } from '#test-processes';
import { uniqueSuffix } from '#test-support';
import { client } from '#test-vigil';

// A run's artifacts are written before its result is published. A SIGKILL that lands after the
// first artifact file appears, before the result is out, must leave files no result names, never a
// result that names a missing file.

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-artifact-crash-'));
const artifactsDir = join(dataDir, 'artifacts');
const adminKey = generateApiKey();
let app: AppProcess | undefined;
let target: Server;

async function start(port: number): Promise<string> {
  const started = await startApp('standalone', port, {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    VIGIL_ADMIN_KEY: adminKey,
    VIGIL_STANDALONE_APPS: 'api,projector,ingestor',
    VIGIL_ALLOW_PRIVATE_TARGETS: 'true',
    VIGIL_RATE_LIMIT_PER_MINUTE: '1000000',
  });
  app = started.app;
  return started.url;
}

/** Result ids that have artifact files on disk (key: day/account/check/result/artifact). */
function resultsWithFiles(): Set<string> {
  let files: string[];
  try {
    files = readdirSync(artifactsDir, { recursive: true }).map(String);
  } catch {
    return new Set();
  }
  return new Set(
    files
      .map((file) => file.split('/'))
      .filter((parts) => parts.length === 5 && !parts[4]!.includes('.'))
      .map((parts) => parts[3]!),
  );
}

beforeAll(async () => {
  target = createServer((_req, res) => {
    res.statusCode = 503;
    res.setHeader('content-type', 'text/html');
    res.end('<h1>down</h1>');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await app?.kill('SIGKILL');
  await new Promise<void>((resolve) => target?.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
});

describe('run artifacts survive kill -9 between the write and the publish (embedded)', () => {
  it('no stored result names an artifact that is not there', async () => {
    const port = await freePort();
    let url = await start(port);
    const created = await client(url, adminKey).post('/v1/accounts', {
      name: 'crash',
      plan: 'team',
      ownerEmail: `artifact-crash-${uniqueSuffix()}@example.com`,
    });
    expect(created.status).toBe(201);
    const accountId: string = created.body.account.id;
    const ownerKey: string = created.body.apiKey.key;
    let owner = client(url, ownerKey, accountId);
    const check = await owner.post('/v1/checks', {
      name: 'shop',
      checkType: 'BROWSER',
      activated: false,
      browser: { url: `http://127.0.0.1:${(target.address() as AddressInfo).port}/` },
    });
    expect(check.status, JSON.stringify(check.body)).toBe(201);
    const checkId: string = check.body.id;

    // One run that completes, then kills that land as soon as a new run's first artifact is on disk.
    const completed = await owner.post(`/v1/checks/${checkId}/trigger`);
    expect(completed.status, JSON.stringify(completed.body)).toBe(200);
    const killedRuns: string[] = [];
    for (let round = 0; round < 3; round++) {
      const before = resultsWithFiles();
      void owner.post(`/v1/checks/${checkId}/trigger`).catch(() => null);
      let fresh: string | undefined;
      for (let waited = 0; fresh === undefined && waited < 60_000; waited += 2) {
        fresh = [...resultsWithFiles()].find((id) => !before.has(id));
        if (fresh === undefined) await new Promise((resolve) => setTimeout(resolve, 2));
      }
      expect(fresh, 'a triggered run wrote no artifact').toBeDefined();
      expect(await app!.kill('SIGKILL')).toBe('SIGKILL');
      url = await start(port);
      owner = client(url, ownerKey, accountId);
      killedRuns.push(fresh!);
    }

    // Every stored result: each artifact it names streams, matching its sha256.
    // Once the completed run reads back, the restarted process has drained whatever was published.
    await eventually(
      () => owner.get(`/v1/check-results/${checkId}/${completed.body.results[0].result.id}`),
      (response) => response.status === 200,
      30_000,
      250,
    );
    const runs = await owner.get(`/v1/check-results/${checkId}?limit=100`);
    const storedIds = new Set((runs.body.items as { id: string }[]).map((run) => run.id));
    let checked = 0;
    for (const { id } of runs.body.items as { id: string }[]) {
      const run = await owner.get(`/v1/check-results/${checkId}/${id}`);
      for (const artifact of run.body.artifacts ?? []) {
        const response = await fetch(`${url}/v1/check-results/${checkId}/${id}/artifacts/${artifact.id}`, {
          headers: { authorization: `Bearer ${ownerKey}`, 'x-service-account': accountId },
        });
        expect(response.status, `${id}/${artifact.id}`).toBe(200);
        const body = Buffer.from(await response.arrayBuffer());
        expect(createHash('sha256').update(body).digest('hex')).toBe(artifact.sha256);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(2);
    // The kills really fell between the write and the publish: files whose result never came out.
    expect(killedRuns.filter((id) => !storedIds.has(id)).length).toBeGreaterThanOrEqual(1);
  }, 300_000);
});
