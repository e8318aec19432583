import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

/** "Run" in the editor and "run now": real runs against a local HTTP server. */
describe('running checks from the API (embedded)', () => {
  let vigil: TestVigil;
  let target: Server;
  let base: string;
  const status = 200;
  const seenAuth: string[] = [];

  beforeAll(async () => {
    target = createServer((request, response) => {
      seenAuth.push(String(request.headers.authorization ?? ''));
      response.writeHead(status, { 'content-type': 'application/json', 'x-served-by': 'test' });
      response.end(JSON.stringify({ ok: status < 400, items: [1, 2, 3], path: request.url }));
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    vigil = await startVigil({ env: { VIGIL_RUNNER_ALLOW_PRIVATE: 'true' } });
  });
  afterAll(async () => {
    await vigil?.stop();
    await new Promise((resolve) => target?.close(resolve));
  });

  const apiCheck = (url: string, assertions: unknown[] = []) => ({
    name: 'Orders',
    checkType: 'API',
    request: {
      url,
      headers: [{ key: 'authorization', value: 'Bearer {{ORDERS_TOKEN}}' }],
      assertions,
    },
  });

  it('tests an unsaved definition: each assertion with its outcome, nothing stored', async () => {
    const a = await createAccount(vigil);
    await a.owner.post('/v1/variables', { key: 'ORDERS_TOKEN', value: 's3cr3t-token-value', secret: true });
    const run = await a.owner.post(
      '/v1/checks/test',
      apiCheck(`${base}/orders`, [
        { source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' },
        { source: 'JSON_BODY', property: '$.items.length', comparison: 'EQUALS', target: '3' },
        { source: 'HEADERS', property: 'x-served-by', comparison: 'EQUALS', target: 'nope' },
      ]),
    );
    expect(run.status, JSON.stringify(run.body)).toBe(200);
    expect(run.body.result).toMatchObject({
      checkType: 'API',
      statusCode: 200,
      hasFailures: true,
      runLocation: 'local',
    });
    expect(run.body.assertions.map((a: { passed: boolean }) => a.passed)).toEqual([true, true, false]);
    expect(run.body.result.errorMessage).toMatch(/x-served-by/);
    expect(seenAuth.at(-1)).toBe('Bearer s3cr3t-token-value');
    expect(JSON.stringify(run.body)).not.toContain('s3cr3t-token-value');
    expect((await a.owner.get('/v1/checks')).body).toEqual([]);
  });

  it('triggers a saved check: the run is stored, from each location', async () => {
    const a = await createAccount(vigil);
    await a.owner.post('/v1/variables', { key: 'ORDERS_TOKEN', value: 't' });
    const created = await a.owner.post('/v1/checks', {
      ...apiCheck(`${base}/ok`, [{ source: 'STATUS_CODE', comparison: 'LESS_THAN', target: '300' }]),
      locations: ['eu-west-1', 'us-east-1'],
    });
    expect(created.status).toBe(201);
    const triggered = await a.owner.post(`/v1/checks/${created.body.id}/trigger`);
    expect(triggered.status, JSON.stringify(triggered.body)).toBe(200);
    const locations = triggered.body.results.map((r: { result: { runLocation: string } }) => r.result.runLocation);
    expect(locations.sort()).toEqual(['eu-west-1', 'us-east-1']);
    expect(triggered.body.results.every((r: { result: { hasFailures: boolean } }) => !r.result.hasFailures)).toBe(true);
    const stored = await a.owner.get(`/v1/analytics/api-checks/${created.body.id}?metrics=responseTime&limit=10`);
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    expect(stored.body.series[0].data).toHaveLength(2);
  });

  it('answers 400 for checks it cannot run, and refuses private targets unless allowed', async () => {
    const a = await createAccount(vigil);
    const external = await a.owner.post('/v1/checks', { name: 'fed', checkType: 'API' });
    const refused = await a.owner.post(`/v1/checks/${external.body.id}/trigger`);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/external check/);
    const heartbeat = await a.owner.post('/v1/checks/test', {
      name: 'hb',
      checkType: 'HEARTBEAT',
      heartbeat: { period: 5 },
    });
    expect(heartbeat.status).toBe(400);
    expect(
      (await a.owner.post('/v1/checks/test', { name: 'x', checkType: 'API', request: { url: 'ftp://x' } })).status,
    ).toBe(400);
    const foreign = await createAccount(vigil);
    expect((await foreign.owner.post(`/v1/checks/${external.body.id}/trigger`)).status).toBe(404);
  });
});

describe('running checks from the API: the address policy (embedded, private targets not allowed)', () => {
  let vigil: TestVigil;
  beforeAll(async () => {
    vigil = await startVigil();
  });
  afterAll(async () => {
    await vigil?.stop();
  });

  it('fails a run whose target is a loopback address, naming the switch', async () => {
    const a = await createAccount(vigil);
    const run = await a.owner.post('/v1/checks/test', {
      name: 'internal',
      checkType: 'URL',
      request: { url: 'http://127.0.0.1:9/' },
    });
    expect(run.status).toBe(200);
    expect(run.body.result.hasFailures).toBe(true);
    expect(run.body.result.errorMessage).toMatch(/VIGIL_ALLOW_PRIVATE_TARGETS/);
  });
});
