import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { eventually } from '#test-processes';

const CHECKS = 40;
/** Each run takes this long, one at a time: 40 one-minute checks are 80 s of work a minute, so some must wait past the 5 s a run may be late. */
const SLOW_MS = 2_000;

interface Skipped {
  location: string;
  lastHour: number;
  reason: string;
}

/**
 * Issue 29, item 1 through the whole standalone process: a saturated runner (concurrency 1, slow
 * loopback targets) skips runs it could only start late, counts them per check and location in
 * the check status, /metrics and /ready, and a skipped window is no data, never a failure.
 */
describe('a saturated runner skips out loud', () => {
  let vigil: TestVigil;
  let target: Server;
  let targetUrl: string;

  beforeAll(async () => {
    target = createServer((_req, res) => {
      setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        res.end('{"ok":true}');
      }, SLOW_MS);
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    vigil = await startVigil({ env: { VIGIL_RUNNER_ALLOW_PRIVATE: 'true', VIGIL_RUNNER_CONCURRENCY: '1' } });
  });
  afterAll(async () => {
    await vigil?.stop();
    target.closeAllConnections();
    await new Promise((resolve) => target.close(resolve));
  });

  it('skips and counts rather than running late; the skipped window has no result and no failure', async () => {
    const { owner } = await createAccount(vigil);
    const ids: string[] = [];
    const createdAt = Date.now();
    for (let i = 0; i < CHECKS; i++) {
      const created = await owner.post('/v1/checks', {
        name: `slow ${i}`,
        checkType: 'API',
        frequency: 1,
        request: { method: 'GET', url: `${targetUrl}/slow/${i}` },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids.push(created.body.id as string);
    }
    const statusOf = async (id: string) =>
      (await owner.get(`/v1/check-statuses?checkId=${id}`)).body[0] as
        { skipped?: Skipped[]; hasFailures: boolean; noData: boolean } | undefined;
    const resultsOf = async (id: string) =>
      (await owner.get(`/v1/check-results/${id}?limit=100`)).body.items as { hasFailures: boolean; id: string }[];

    // A skipped check shows on its status once it has one: it may have run in another window.
    const skipped = await eventually(
      async () => {
        const found: { id: string; skipped: Skipped[] }[] = [];
        for (const id of ids) {
          const status = await statusOf(id);
          if (status?.skipped) found.push({ id, skipped: status.skipped });
        }
        const ready = (await fetch(`${vigil.url}/ready`).then((r) => r.json())) as {
          status: string;
          checks: Record<string, unknown>;
        };
        return { found, ready };
      },
      ({ found }) => found.length > 0,
      150_000,
      2_000,
    );
    const [first] = skipped.found;
    expect(first!.skipped).toEqual([{ location: 'local', lastHour: expect.any(Number), reason: 'saturated' }]);
    expect(first!.skipped[0]!.lastHour).toBeGreaterThanOrEqual(1);
    // /ready stays ready, and says the location is saturated.
    expect(skipped.ready.status).toBe('ready');
    expect(skipped.ready.checks.runner).toMatchObject({
      ok: true,
      details: { location: 'local', saturated: true },
    });
    const metrics = await fetch(`${vigil.url}/metrics`).then((r) => r.text());
    const counted = /^vigil_runner_windows_skipped_total\{location="local",reason="saturated"\} (\d+)/m.exec(metrics);
    expect(Number(counted?.[1] ?? 0)).toBeGreaterThanOrEqual(1);

    // Skipped windows are no data: nothing synthesises a failure, and no check reads as failing or NO_DATA.
    for (const id of ids) {
      expect((await resultsOf(id)).filter((r) => r.hasFailures)).toEqual([]);
      const status = await statusOf(id);
      if (status) expect(status).toMatchObject({ hasFailures: false, noData: false });
    }
    // Runs and skips together: at most one of either per check and window since the checks were created.
    const minute = (ms: number) => Math.floor(ms / 60_000);
    const windows = minute(Date.now()) - minute(createdAt) + 1;
    for (const { id, skipped: perLocation } of skipped.found) {
      const runs = (await resultsOf(id)).length;
      expect(runs + perLocation[0]!.lastHour).toBeLessThanOrEqual(windows);
    }
  }, 200_000);
});
