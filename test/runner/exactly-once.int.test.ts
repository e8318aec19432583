import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runResultId, windowStart } from '#scheduling';
import { startDistributed, type DistributedFixture } from '#test-distributed';
import { eventually, spawnApp, type AppProcess } from '#test-processes';

const MIN = 60_000;
const LOCATION = 'eu-west-1';
const CHECKS = 30;
const TEST_MINUTES = 5;

/**
 * Two runner replicas (real processes) for one location on Redis, Kafka and ClickHouse; one is
 * SIGKILLed while runs are in flight and started again later. Over five minutes of one-minute
 * checks, every (check, window) has exactly one result in ClickHouse, and the restart runs no
 * windows long past. This is the one test that takes real minutes.
 */
describe('runner exactly once across replicas and a SIGKILL', () => {
  let fixture: DistributedFixture;
  let target: Server;
  let targetUrl: string;
  let inFlight = 0;
  let firstHit = 0;
  const runners: AppProcess[] = [];

  beforeAll(async () => {
    // Slow answers, so a kill lands while runs are in flight.
    target = createServer((_req, res) => {
      inFlight += 1;
      firstHit ||= Date.now();
      setTimeout(() => {
        inFlight -= 1;
        res.end('ok');
      }, 1_500);
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    fixture = await startDistributed({ checks: 0, apps: 'api,projector,ingestor' });
  });
  afterAll(async () => {
    for (const runner of runners) await runner.kill('SIGKILL');
    await fixture?.stop();
    await new Promise((resolve) => target?.close(resolve));
  });

  const startRunner = () => {
    const runner = spawnApp('runner', {
      ...fixture.env,
      VIGIL_RUNNER_LOCATION: LOCATION,
      VIGIL_RUNNER_DEFAULT_LOCATION: LOCATION,
      VIGIL_RUNNER_ALLOW_PRIVATE: 'true',
      VIGIL_RUNNER_LEASE_MS: '15000',
    });
    runners.push(runner);
    return runner;
  };

  it(
    'gives every (check, window) exactly one result in ClickHouse',
    async () => {
      const checkIds: string[] = [];
      for (let i = 0; i < CHECKS; i++) {
        const created = await fixture.account.owner.post('/v1/checks', {
          name: `exactly once ${i}`,
          checkType: 'API',
          frequency: 1,
          locations: [LOCATION],
          maxResponseTime: 5_000,
          degradedResponseTime: 3_000,
          request: { url: `${targetUrl}/c${i}` },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        checkIds.push(created.body.id);
      }
      // Replicas start well inside a minute, so both schedule the new checks for the same window.
      const into = Date.now() - windowStart(Date.now(), MIN);
      if (into > 30_000) await new Promise((resolve) => setTimeout(resolve, MIN - into + 2_000));
      const started = Date.now();
      const a = startRunner();
      startRunner();

      // Kill one replica while it has runs in flight, about 90 s in; start it again 30 s later.
      await new Promise((resolve) => setTimeout(resolve, 90_000));
      await eventually(
        async () => inFlight,
        (n) => n > 0,
        60_000,
        20,
      );
      await a.kill('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 30_000));
      startRunner();

      const stopAt = started + TEST_MINUTES * MIN;
      await new Promise((resolve) => setTimeout(resolve, stopAt - Date.now()));
      for (const runner of runners) await runner.kill('SIGTERM');

      // Every window from the first to the last that ended before the stop.
      const first = windowStart(firstHit, MIN);
      const last = windowStart(stopAt, MIN) - MIN;
      const expected = new Map<string, string>();
      for (const checkId of checkIds)
        for (let w = first; w <= last; w += MIN) expected.set(runResultId(checkId, LOCATION, w), `${checkId}@${w}`);
      const ids = checkIds.map((id) => `'${id}'`).join(',');
      const rows = await eventually(
        () =>
          fixture.clickhouse.query<{ id: string; n: number | string }>(
            `SELECT toString(id) AS id, count() AS n FROM check_results FINAL WHERE check_id IN (${ids}) GROUP BY id`,
          ),
        (list) => [...expected.keys()].every((id) => list.some((row) => row.id === id)),
        60_000,
        1_000,
      );
      // Exactly one row per expected window; any other id is a window outside the range (the
      // current one at the stop), never a second run of one window.
      for (const row of rows) expect(Number(row.n)).toBe(1);
      const known = new Set(
        checkIds.flatMap((checkId) =>
          Array.from({ length: TEST_MINUTES + 2 }, (_, i) => runResultId(checkId, LOCATION, first + i * MIN)),
        ),
      );
      for (const row of rows) expect(known.has(row.id), `unexpected result id ${row.id}`).toBe(true);
      expect(rows.filter((row) => expected.has(row.id))).toHaveLength(expected.size);
      expect(expected.size).toBe(CHECKS * ((last - first) / MIN + 1));
    },
    TEST_MINUTES * MIN + 240_000,
  );
});
