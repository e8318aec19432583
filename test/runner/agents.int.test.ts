import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runResultId, windowStart } from '#scheduling';
import { startDistributed, type DistributedFixture } from '#test-distributed';
import { eventually, freePort, spawnApp, spawnNode, type AppProcess } from '#test-processes';

const MIN = 60_000;
const CHECKS = 8;
/** The 3 minutes of one-minute checks: windows are real minutes, so this test takes about 5. */
const TEST_MINUTES = 3;

/** An agent as its own process (node dist/agent.js's source), killable like a container. */
const spawnAgent = (env: Record<string, string>): AppProcess =>
  spawnNode(['--import', 'tsx', 'apps/runner/src/agent-main.ts'], env);

/**
 * Two agents of one private location and one of another, against the distributed deployment
 * (Redis, Kafka, ClickHouse; the agents' API as its own process). One agent is SIGKILLed while it
 * holds runs and started again; then the API is SIGKILLed under the agents and started again on
 * its port. Every (check, location, window) has exactly one result in ClickHouse.
 */
describe('private-location agents: exactly once across agents, a SIGKILL and an API restart', () => {
  let fixture: DistributedFixture;
  let target: Server;
  let targetUrl: string;
  let inFlight = 0;
  const processes: AppProcess[] = [];

  beforeAll(async () => {
    // Slow answers, so the kill lands while runs are in flight.
    target = createServer((_req, res) => {
      inFlight += 1;
      setTimeout(() => {
        inFlight -= 1;
        res.end('ok');
      }, 1_000);
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    fixture = await startDistributed({ checks: 0, apps: 'api,projector,ingestor' });
  }, 120_000);
  afterAll(async () => {
    for (const p of processes) await p.kill('SIGKILL');
    await fixture?.stop();
    await new Promise((resolve) => target?.close(resolve));
  });

  it(
    'gives every (check, location, window) exactly one result',
    async () => {
      const owner = fixture.account.owner;
      const keys: Record<string, string> = {};
      for (const slugName of ['pl-a', 'pl-b']) {
        const location = await owner.post('/v1/private-locations', { name: slugName, slugName });
        expect(location.status, JSON.stringify(location.body)).toBe(201);
        keys[slugName] = (await owner.post(`/v1/private-locations/${location.body.id}/keys`)).body.rawKey;
      }
      const checkIds: string[] = [];
      for (let i = 0; i < CHECKS; i++) {
        const created = await owner.post('/v1/checks', {
          name: `agent exactly once ${i}`,
          checkType: 'API',
          frequency: 1,
          locations: ['pl-a', 'pl-b'],
          request: { url: `${targetUrl}/c${i}` },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        checkIds.push(created.body.id);
      }

      // The agents' API: its own process on a fixed port, so it can be killed and started again.
      const port = await freePort();
      const apiEnv = { ...fixture.env, PORT: String(port), HOST: '127.0.0.1', VIGIL_AGENT_LEASE_MS: '15000' };
      const startApi = async () => {
        const api = spawnApp('api', apiEnv);
        processes.push(api);
        await eventually(
          () =>
            fetch(`http://127.0.0.1:${port}/ready`)
              .then((r) => r.status)
              .catch(() => 0),
          (status) => status === 200,
          60_000,
        );
        return api;
      };
      const api = await startApi();
      const agentEnv = (slug: string) => ({
        VIGIL_API_URL: `http://127.0.0.1:${port}`,
        VIGIL_AGENT_KEY: keys[slug]!,
        JOB_CONCURRENCY: '4',
        VIGIL_AGENT_POLL_WAIT_MS: '2000',
        VIGIL_RUNTIMES_INSTALL: 'false',
        LOG_LEVEL: 'warn',
      });
      const startAgent = (slug: string) => {
        const agent = spawnAgent(agentEnv(slug));
        processes.push(agent);
        return agent;
      };
      const started = Date.now();
      const a1 = startAgent('pl-a');
      startAgent('pl-a');
      startAgent('pl-b');

      // One agent of pl-a is killed while runs are in flight, about 50 s in; it comes back 15 s later.
      await new Promise((resolve) => setTimeout(resolve, 50_000));
      await eventually(
        async () => inFlight,
        (n) => n > 0,
        60_000,
        20,
      );
      await a1.kill('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 15_000));
      startAgent('pl-a');
      // The API dies under the agents a minute later and is back 5 s after.
      await new Promise((resolve) => setTimeout(resolve, 45_000));
      await api.kill('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      await startApi();

      const stopAt = started + TEST_MINUTES * MIN + 20_000;
      await new Promise((resolve) => setTimeout(resolve, stopAt - Date.now()));
      for (const p of processes) await p.kill('SIGTERM');

      // Every window from the first whole one to the last that ended before the stop.
      const first = windowStart(started, MIN) + MIN;
      const last = windowStart(stopAt, MIN) - MIN;
      const expected = new Set<string>();
      for (const checkId of checkIds)
        for (const slug of ['pl-a', 'pl-b'])
          for (let w = first; w <= last; w += MIN) expected.add(runResultId(checkId, slug, w));
      const ids = checkIds.map((id) => `'${id}'`).join(',');
      const rows = await eventually(
        () =>
          fixture.clickhouse.query<{ id: string; n: number | string }>(
            `SELECT toString(id) AS id, count() AS n FROM check_results FINAL WHERE check_id IN (${ids}) GROUP BY id`,
          ),
        (list) => [...expected].every((id) => list.some((row) => row.id === id)),
        60_000,
        1_000,
      );
      for (const row of rows) expect(Number(row.n)).toBe(1);
      expect(rows.filter((row) => expected.has(row.id))).toHaveLength(expected.size);
      expect(expected.size).toBe(CHECKS * 2 * ((last - first) / MIN + 1));
      expect(expected.size).toBeGreaterThanOrEqual(CHECKS * 2 * 2);
    },
    TEST_MINUTES * MIN + 240_000,
  );
});
