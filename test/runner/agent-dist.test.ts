import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, spawnNode, type AppProcess } from '#test-processes';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The agent as production runs it: `npm run build` bundles apps/runner/src/agent-main.ts into
 * dist/agent.js (the compose agent service's command), and that file alone, with VIGIL_API_URL
 * and VIGIL_AGENT_KEY, leases and runs a private location's check against a real API, then stops
 * cleanly on SIGTERM.
 */
describe('node dist/agent.js', () => {
  let vigil: TestVigil;
  let target: Server;
  let targetUrl: string;
  let agent: AppProcess | undefined;
  const hits: string[] = [];

  beforeAll(async () => {
    // The bundle must match the sources under test.
    execFileSync(process.execPath, ['scripts/build-server.mjs'], { cwd: root, stdio: 'pipe' });
    target = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('ok');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    vigil = await startVigil();
  }, 120_000);
  afterAll(async () => {
    await agent?.kill('SIGKILL');
    await vigil?.stop();
    await new Promise((resolve) => target?.close(resolve));
  });

  it('runs a private location check and exits 0 on SIGTERM', async () => {
    const { owner } = await createAccount(vigil);
    const created = await owner.post('/v1/private-locations', { name: 'Bundle', slugName: 'bundle' });
    const key = (await owner.post(`/v1/private-locations/${created.body.id}/keys`)).body.rawKey as string;
    const check = await owner.post('/v1/checks', {
      checkType: 'API',
      name: 'from the bundle',
      frequency: 1,
      locations: ['bundle'],
      request: { method: 'GET', url: `${targetUrl}/bundle` },
    });
    expect(check.status, JSON.stringify(check.body)).toBe(201);

    agent = spawnNode(['dist/agent.js'], {
      VIGIL_API_URL: vigil.url,
      VIGIL_AGENT_KEY: key,
      LOG_LEVEL: 'info',
      JOB_CONCURRENCY: '2',
      VIGIL_RUNTIMES_INSTALL: 'false',
    });
    const results = await eventually(
      async () =>
        (await owner.get(`/v1/check-results/${check.body.id}`)).body.items as {
          runLocation: string;
          hasFailures: boolean;
        }[],
      (items) => items.length > 0,
      30_000,
    );
    expect(results[0]).toMatchObject({ runLocation: 'bundle', hasFailures: false });
    expect(hits).toContain('/bundle');
    const status = (await owner.get(`/v1/private-locations/${created.body.id}`)).body;
    expect(status).toMatchObject({ status: 'AVAILABLE', agentCount: 1 });

    expect(await agent.kill('SIGTERM')).toBe(0);
    // The key never reaches its own log.
    expect(agent.output()).not.toContain(key);
  }, 90_000);
});
