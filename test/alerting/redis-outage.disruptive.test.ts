import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafkaBus, type MessageBus } from '#bus';
import { createLogger } from '#core';
import { services, uniqueSuffix } from '#test-support';
import { servicesScript } from '#test-distributed';
import { eventually, spawnApp, type AppProcess } from '#test-processes';
import { createAccount, startVigil, type TestVigil } from '#test-vigil';
import { watchPort } from '../support/outage.ts';
import { startReceiver, type Receiver } from './receiver.ts';

type Phase = 'stopping' | 'down' | 'starting';
interface Probe {
  phase: Phase;
  route: string;
  status: number;
  ms: number;
  start: number;
  end: number;
}

const OUTAGE_MS = 20_000;
// The server's own deadline is 1 s; the bound is generous so a loaded machine does not fail it.
const LATENCY_BOUND_MS = 5_000;
const RETRY_DELAY_MS = 4_000;
/** Attempts of each delivery the receiver refuses before it accepts one. */
const FAILING_FIRST = 2;
const base = Date.parse('2026-11-20T10:00:00Z');
const at = (minutes: number) => new Date(base + minutes * 60_000).toISOString();

// Stops the shared Redis, so it runs in the "disruptive" project, after every other suite.
describe('alerting on Redis survives Redis going away for 20 s', () => {
  let vigil: TestVigil;
  let receiver: Receiver;
  let bus: MessageBus;
  const apps: AppProcess[] = [];
  let env: Record<string, string>;
  let redisStopped = false;

  beforeAll(async () => {
    const { REDIS_URL, KAFKA_BROKERS, CLICKHOUSE_URL } = services();
    const suffix = uniqueSuffix();
    env = {
      REDIS_URL,
      REDIS_KEY_PREFIX: `vigil-test-${suffix}:`,
      KAFKA_BROKERS,
      KAFKA_TOPIC_PREFIX: `t${suffix}.`,
      KAFKA_TOPIC_PARTITIONS: '2',
      CLICKHOUSE_URL,
      CLICKHOUSE_DATABASE: `vigil_test_${suffix}`,
      LOG_LEVEL: 'warn',
      PORT: '0',
      VIGIL_ENCRYPTION_KEY: 'ab'.repeat(32),
      VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
      VIGIL_WEBHOOK_RETRY_DELAY_MS: String(RETRY_DELAY_MS),
      VIGIL_WEBHOOK_MAX_RETRIES: '10',
      VIGIL_WEBHOOK_TIMEOUT_MS: '3000',
    };
    vigil = await startVigil({ env: { ...env, LOG_LEVEL: 'silent', VIGIL_STANDALONE_APPS: 'api,projector' } });
    env.DATA_DIR = vigil.dataDir;
    env.VIGIL_PUBLIC_URL = vigil.url;
    // The alerter and the dispatcher run as their own processes, as in production.
    apps.push(spawnApp('alerter', env), spawnApp('dispatcher', env));
    bus = createKafkaBus({
      brokers: KAFKA_BROKERS.split(','),
      clientId: `test-${suffix}`,
      log: createLogger({ level: 'silent' }),
    });
    // Every delivery (by its webhook-id) is refused FAILING_FIRST times, so retries are pending.
    const attempts = new Map<string, number>();
    receiver = await startReceiver((_count, request) => {
      const id = String(request.headers['webhook-id']);
      const n = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, n);
      return n <= FAILING_FIRST ? 500 : 200;
    });
  });

  afterAll(async () => {
    // Always give Redis back to the other suites, even when the test failed half-way.
    if (redisStopped) await servicesScript('up', 'redis');
    for (const app of apps) await app.kill('SIGTERM');
    await bus?.close();
    await receiver?.close();
    await vigil?.running.platform.analytics
      ?.query(`DROP DATABASE IF EXISTS ${env.CLICKHOUSE_DATABASE}`)
      .catch(() => undefined);
    await vigil?.stop();
  });

  it('answers 503 fast on routes that need Redis, names it in /ready, recovers, and loses or doubles no alert or retry', async () => {
    const account = await createAccount(vigil);
    const check = async (name: string) =>
      (await account.owner.post('/v1/checks', { name, checkType: 'API', locations: ['eu-west-1'] })).body.id as string;
    const checkA = await check('A');
    const checkB = await check('B');
    // C has no channel: the ingest probes during the outage must not change A's or B's alerts.
    const checkC = await check('C');
    const channel = await account.owner.post('/v1/alert-channels', {
      type: 'WEBHOOK',
      config: { name: 'ops', url: `${receiver.url}/hook`, webhookSecret: 'topsecret' },
    });
    expect(channel.status, JSON.stringify(channel.body)).toBe(201);
    for (const checkId of [checkA, checkB]) {
      const subscribed = await account.owner.put(`/v1/alert-channels/${channel.body.id}/subscriptions`, {
        checkId,
        activated: true,
      });
      expect(subscribed.status).toBe(200);
    }
    const result = (checkId: string, minutes: number, failing: boolean) => ({
      id: randomUUID(),
      accountId: account.accountId,
      checkId,
      checkType: 'API',
      startedAt: at(minutes),
      runLocation: 'eu-west-1',
      hasFailures: failing,
      responseTime: 120,
      statusCode: failing ? 503 : 200,
    });
    const ingest = async (...results: ReturnType<typeof result>[]) => {
      const response = await vigil.as(vigil.ingestKey).post('/v1/check-results', results);
      expect(response.status, JSON.stringify(response.body)).toBe(202);
      expect(response.body.accepted).toBe(results.length);
    };
    /** As a runner does: straight onto the results topic, which needs no Redis. */
    const publish = (...results: ReturnType<typeof result>[]) =>
      bus.publish(
        vigil.running.platform.topics.checkResults,
        results.map((r) => ({ key: r.checkId, value: JSON.stringify(r) })),
      );
    const successes = () => receiver.received.filter((_r, index) => isSuccess(index));
    // The receiver answered 2xx to the n-th request of an id when n > FAILING_FIRST.
    const isSuccess = (index: number) => {
      const id = receiver.received[index]!.headers['webhook-id'];
      return receiver.received.slice(0, index + 1).filter((r) => r.headers['webhook-id'] === id).length > FAILING_FIRST;
    };

    // Before the outage: A fails, and its first delivery attempt is refused and recorded, so a
    // retry is pending in Redis when it goes away.
    await ingest(result(checkA, 0, false), result(checkB, 0, false));
    await ingest(result(checkA, 1, true));
    await eventually(
      async () =>
        (await account.owner.get(`/v1/alert-channels/${channel.body.id}/deliveries`)).body as { outcome: string }[],
      (log) => Array.isArray(log) && log.some((a) => a.outcome === 'failed'),
      60_000,
      250,
    );
    expect(receiver.received).toHaveLength(1);

    const probes: Probe[] = [];
    let phase: Phase = 'stopping';
    let probing = true;
    const redisUrl = new URL(services().REDIS_URL);
    const watcher = watchPort(redisUrl.hostname, Number(redisUrl.port || 6379));
    const timed = async (route: string, call: () => Promise<Response>) => {
      const start = Date.now();
      const started = performance.now();
      const when = phase;
      let status: number;
      try {
        const response = await call();
        status = response.status;
        await response.text();
      } catch {
        status = -1; // no answer within 30 s: counted as a hang
      }
      probes.push({ phase: when, route, status, ms: performance.now() - started, start, end: Date.now() });
    };
    const headers = (key: string) => ({
      authorization: `Bearer ${key}`,
      'x-service-account': account.accountId,
      'content-type': 'application/json',
    });
    // Routes that need Redis (read models, rate limits, check look-ups), about 4 requests a second.
    const prober = (async () => {
      while (probing) {
        await Promise.all([
          timed('GET /v1/checks', () =>
            fetch(`${vigil.url}/v1/checks`, {
              headers: headers(account.ownerKey),
              signal: AbortSignal.timeout(30_000),
            }),
          ),
          timed('POST /v1/check-results', () =>
            fetch(`${vigil.url}/v1/check-results`, {
              method: 'POST',
              headers: headers(vigil.ingestKey),
              body: JSON.stringify([result(checkC, 0, false)]),
              signal: AbortSignal.timeout(30_000),
            }),
          ),
        ]);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();

    let ready: { status: number; body: any; start: number; end: number } | undefined;
    try {
      redisStopped = true;
      await servicesScript('down', 'redis');
      phase = 'down';
      const downAt = Date.now();
      // A recovers and B fails while Redis is down: the runner's results wait in Kafka.
      await publish(result(checkA, 2, false), result(checkB, 1, true));
      // The watcher must have seen the port closed before /ready is asked, or the probe cannot count.
      await watcher.closedAfter(downAt);
      const readyStart = Date.now();
      const answer = await fetch(`${vigil.url}/ready`);
      const body = await answer.json();
      ready = { status: answer.status, body, start: readyStart, end: Date.now() };
      expect((await fetch(`${vigil.url}/health`)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - downAt))));
      phase = 'starting';
      await servicesScript('up', 'redis');
      redisStopped = false;
    } finally {
      probing = false;
      await prober;
      await watcher.stop();
    }

    // Recovery without restarting any process.
    await eventually(
      async () => (await account.owner.get('/v1/checks')).status,
      (status) => status === 200,
      30_000,
    );
    expect((await fetch(`${vigil.url}/ready`)).status).toBe(200);
    await ingest(result(checkB, 2, false));

    const expected = [
      `ALERT_FAILURE ${checkA}`,
      `ALERT_RECOVERY ${checkA}`,
      `ALERT_FAILURE ${checkB}`,
      `ALERT_RECOVERY ${checkB}`,
    ].sort();
    const alertOf = (index: number) => {
      const body = JSON.parse(receiver.received[index]!.body) as { ALERT_TYPE: string; CHECK_ID: string };
      return `${body.ALERT_TYPE} ${body.CHECK_ID}`;
    };
    const delivered = () => [...new Set(successes().map((r) => alertOf(receiver.received.indexOf(r))))].sort();
    await eventually(
      async () => delivered(),
      (list) => list.length >= expected.length,
      120_000,
      500,
    );
    // Long enough for a doubled delivery or a stray retry to show up.
    await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * 2));

    // Another suite's `services.sh up` may start Redis early: what counts is whether it was down.
    const down = probes.filter((p) => watcher.closedThroughout(p.start, p.end));
    const maxMs = Math.max(...probes.map((p) => p.ms));
    const idsByAlert = new Map<string, Set<string>>();
    const attemptsById = new Map<string, number>();
    receiver.received.forEach((r, index) => {
      const id = String(r.headers['webhook-id']);
      idsByAlert.set(alertOf(index), (idsByAlert.get(alertOf(index)) ?? new Set()).add(id));
      attemptsById.set(id, (attemptsById.get(id) ?? 0) + 1);
    });
    const successById = new Map<string, number>();
    for (const r of successes()) {
      const id = String(r.headers['webhook-id']);
      successById.set(id, (successById.get(id) ?? 0) + 1);
    }
    const counts = (list: Probe[]) => {
      const tally: Record<string, number> = {};
      for (const p of list) tally[`${p.route} ${p.status}`] = (tally[`${p.route} ${p.status}`] ?? 0) + 1;
      return JSON.stringify(tally);
    };
    console.log(
      `[redis outage] requests ${probes.length}; stopping ${counts(probes.filter((p) => p.phase === 'stopping'))}; ` +
        `down ${counts(probes.filter((p) => p.phase === 'down'))}; starting ${counts(probes.filter((p) => p.phase === 'starting'))}; max latency ${Math.round(maxMs)} ms; ` +
        `Redis port closed for ${watcher.longestClosedMs()} ms; requests made while it was closed ${counts(down)}; ` +
        `/ready while down ${ready?.status} ${JSON.stringify(ready?.body.checks?.stateStore)}`,
    );
    console.log(
      `[redis outage] alerts delivered ${delivered().length}/${expected.length}; webhook requests ${receiver.received.length}; ` +
        `per delivery id (attempts/successes): ${[...attemptsById].map(([id, n]) => `${id.slice(0, 8)} ${n}/${successById.get(id) ?? 0}`).join(', ')}`,
    );

    // While Redis is down, routes that need it answer 503 (retryable) and nothing hangs.
    expect(ready && watcher.closedThroughout(ready.start, ready.end)).toBe(true);
    expect(ready?.status).toBe(503);
    expect(ready?.body.checks.stateStore.ok).toBe(false);
    expect(ready?.body.checks.stateStore.error).toMatch(/redis/i);
    // Reads need Redis (read models behind the key look-up, then the checks). Ingestion may go on:
    // a recently seen check and the platform key need no Redis, and results go to Kafka.
    const reads = down.filter((p) => p.route === 'GET /v1/checks');
    expect(reads.length).toBeGreaterThanOrEqual(5);
    expect(reads.map((p) => p.status).filter((status) => status !== 503)).toEqual([]);
    expect(down.map((p) => p.status).filter((status) => status !== 202 && status !== 503)).toEqual([]);
    expect(probes.map((p) => p.status).filter((s) => ![200, 202, 503].includes(s))).toEqual([]);
    expect(maxMs).toBeLessThan(LATENCY_BOUND_MS);

    // No alert lost or doubled: each of the four alerts has one delivery id, delivered once,
    // after exactly the refused attempts (the retry pending across the outage was not lost).
    expect(delivered()).toEqual(expected);
    for (const alert of expected) expect(idsByAlert.get(alert)?.size, alert).toBe(1);
    expect([...successById.values()]).toEqual(expected.map(() => 1));
    expect([...attemptsById.values()]).toEqual(expected.map(() => FAILING_FIRST + 1));
    for (const app of apps) expect(app.child.exitCode, app.output().slice(-2000)).toBeNull();
  }, 300_000);
});
