import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servicesScript, startDistributed, type DistributedFixture } from '#test-distributed';
import { eventually, spawnApp, type AppProcess } from '#test-processes';
import { services } from '#test-support';
import { sampleResult } from '../fixtures/results.ts';
import { watchPort } from '../support/outage.ts';

type Phase = 'before' | 'stopping' | 'down' | 'starting' | 'after';
interface Sent {
  phase: Phase;
  status: number;
  ms: number;
  retryAfter: string | null;
  ids: string[];
  start: number;
  end: number;
}

const OUTAGE_MS = 20_000;
// The server's own deadline is 1 s; the bound is generous so a loaded machine does not fail it.
const LATENCY_BOUND_MS = 5_000;

// Stops the shared Kafka, so it runs in the "disruptive" project, after every other suite.
describe('ingestion on Kafka survives Kafka going away for 20 s', () => {
  let fx: DistributedFixture;
  let ingestor: AppProcess | undefined;
  let kafkaStopped = false;
  beforeAll(async () => {
    fx = await startDistributed({ checks: 5 });
    ingestor = spawnApp('ingestor', { ...fx.env, VIGIL_INGEST_RETRY_MS: '200' });
  });
  afterAll(async () => {
    // Always give Kafka back to the other suites, even when the test failed half-way.
    if (kafkaStopped) await servicesScript('up', 'kafka');
    await ingestor?.kill('SIGTERM');
    await fx?.stop();
  });

  it('answers 503 fast while Kafka is down, names it in /ready, recovers without a restart, and stores every acknowledged result once', async () => {
    const sent: Sent[] = [];
    let phase: Phase = 'before';
    let posting = true;
    const storedIds = async () =>
      fx.clickhouse.query<{ id: string; n: string }>(
        `SELECT toString(id) AS id, count() AS n FROM check_results FINAL WHERE account_id = '${fx.account.accountId}' GROUP BY id`,
      );

    async function postOnce(): Promise<void> {
      const results = Array.from({ length: 20 }, (_, i) =>
        sampleResult({ accountId: fx.account.accountId, checkId: fx.checkIds[i % fx.checkIds.length]! }),
      );
      const at = phase;
      const start = Date.now();
      const started = performance.now();
      let status: number;
      let retryAfter: string | null = null;
      try {
        const response = await fetch(`${fx.vigil.url}/v1/check-results`, {
          method: 'POST',
          headers: { authorization: `Bearer ${fx.vigil.ingestKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(results),
          signal: AbortSignal.timeout(30_000),
        });
        status = response.status;
        retryAfter = response.headers.get('retry-after');
        await response.text();
      } catch {
        status = -1; // no answer within 30 s: counted as a hang
      }
      sent.push({
        phase: at,
        status,
        ms: performance.now() - started,
        retryAfter,
        ids: results.map((r) => String(r.id)),
        start,
        end: Date.now(),
      });
    }
    // The ingestor process is consuming (it may take seconds to start) before Kafka goes away.
    await postOnce();
    const warmUp = sent[0]!;
    expect(warmUp.status).toBe(202);
    await eventually(storedIds, (rows) => rows.length === warmUp.ids.length, 90_000, 500);

    const [kafkaHost, kafkaPort] = services().KAFKA_BROKERS.split(',')[0]!.split(':');
    const watcher = watchPort(kafkaHost!, Number(kafkaPort));
    // Two clients posting with a pause, through the whole outage: about 4 requests a second, well
    // under the ingest key's rate limit (600 a minute) even when every answer is a fast 503.
    const posters = Array.from({ length: 2 }, async () => {
      while (posting) {
        await postOnce();
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    });

    try {
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      phase = 'stopping';
      kafkaStopped = true;
      await servicesScript('down', 'kafka');
      phase = 'down';
      const downAt = Date.now();
      // /ready names Kafka while it is down; poll, since the bus notices the outage on its own time.
      const ready = await eventually(
        async () => {
          const response = await fetch(`${fx.vigil.url}/ready`);
          return { status: response.status, body: (await response.json()) as Record<string, any> };
        },
        (r) => r.status === 503,
        10_000,
      );
      expect(ready.body.checks.messageBus.ok).toBe(false);
      expect(ready.body.checks.messageBus.error).toMatch(/kafka/i);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - downAt))));
      phase = 'starting';
      await servicesScript('up', 'kafka');
      kafkaStopped = false;
      phase = 'after';
      // Recovery without restarting any Vigil process: new posts are acknowledged again.
      const recoveredFrom = sent.length;
      await eventually(
        async () => sent.slice(recoveredFrom).some((s) => s.status === 202),
        (ok) => ok,
        60_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    } finally {
      posting = false;
      await Promise.all(posters);
      await watcher.stop();
    }

    const byPhase = (p: Phase) => sent.filter((s) => s.phase === p);
    // Another suite's `services.sh up` may start Kafka early: what counts is whether it was down.
    const down = sent.filter((s) => watcher.closedThroughout(s.start, s.end));
    const maxOutageMs = Math.max(...[...byPhase('stopping'), ...down, ...byPhase('starting')].map((s) => s.ms));
    const acknowledged = new Set(sent.filter((s) => s.status >= 200 && s.status < 300).flatMap((s) => s.ids));
    const summary = (p: Phase) => {
      const list = byPhase(p);
      const counts: Record<string, number> = {};
      for (const s of list) counts[s.status] = (counts[s.status] ?? 0) + 1;
      return `${p}: ${JSON.stringify(counts)}`;
    };
    console.log(
      `[kafka outage] requests ${sent.length}; ${(['before', 'stopping', 'down', 'starting', 'after'] as Phase[]).map(summary).join('; ')}; ` +
        `max latency while Kafka was stopping/down/starting ${Math.round(maxOutageMs)} ms; ` +
        `Kafka port closed for ${watcher.longestClosedMs()} ms, ${down.length} requests made meanwhile; results acknowledged ${acknowledged.size}`,
    );

    expect(byPhase('before').every((s) => s.status === 202)).toBe(true);
    // While Kafka is down every ingest answers 503 (retryable), none hangs and none is another error.
    expect(down.length).toBeGreaterThan(10);
    expect(down.map((s) => s.status).filter((status) => status !== 503)).toEqual([]);
    expect(down.filter((s) => s.retryAfter !== '1')).toEqual([]);
    expect(sent.map((s) => s.status).filter((status) => status !== 202 && status !== 503)).toEqual([]);
    expect(maxOutageMs).toBeLessThan(LATENCY_BOUND_MS);
    expect(byPhase('after').some((s) => s.status === 202)).toBe(true);
    expect((await fetch(`${fx.vigil.url}/ready`)).status).toBe(200);

    // Every acknowledged result reaches ClickHouse exactly once, through the same ingestor process.
    const rows = await eventually(
      storedIds,
      (list) => {
        const found = new Set(list.map((row) => row.id));
        return [...acknowledged].every((id) => found.has(id));
      },
      120_000,
      1_000,
    ).catch(async () => storedIds());
    const counts = new Map(rows.map((row) => [row.id, Number(row.n)]));
    const missing = [...acknowledged].filter((id) => !counts.has(id));
    const doubled = [...acknowledged].filter((id) => (counts.get(id) ?? 0) > 1);
    console.log(
      `[kafka outage] acknowledged ${acknowledged.size}, found in ClickHouse ${acknowledged.size - missing.length}, ` +
        `missing ${missing.length}, more than once ${doubled.length}; rows for the account ${rows.length} (unacknowledged results may land too)`,
    );
    expect(missing, ingestor!.output().slice(-3000)).toEqual([]);
    expect(doubled).toEqual([]);
    expect(ingestor!.child.exitCode, ingestor!.output().slice(-2000)).toBeNull();
  }, 300_000);
});
