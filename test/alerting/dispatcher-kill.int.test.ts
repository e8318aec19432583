import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertEvent } from '#alerting';
import { partitionFor } from '#bus';
import { checkContext, deliveryIdFor, sampleAlert } from '#notify';
import { ReadModels } from '#readmodels';
import { startDistributed, type DistributedFixture } from '#test-distributed';
import { eventually, spawnApp, type AppProcess } from '#test-processes';

const CHECKS = 20;
const ALERTS_PER_CHECK = 30;
const CHANNELS = 5;
/** Channels whose receiver path answers 500 the first time it sees a delivery id. */
const FAILING = 1;
const EXPECTED = CHECKS * ALERTS_PER_CHECK * CHANNELS;
/** The dispatcher is killed when the receiver has seen this many distinct ids, with more in flight. */
const KILL_AT = 1_000;
/** The topic's partitions in startDistributed. */
const PARTITIONS = 4;

interface Held {
  id: string;
  res: ServerResponse;
  closed: boolean;
}

interface Arrival {
  id: string;
  path: string;
  status: number;
  body: string;
  at: number;
}

/**
 * The dispatcher app (a real process, on Kafka and Redis) is SIGKILLed in the middle of a few
 * thousand deliveries, with one channel in five failing each first attempt, and started again.
 * It handles two partitions' batches at once (DISPATCHER_FEED.partitions). The receiver holds
 * the very first request unanswered until the kill, so that request's batch cannot be
 * acknowledged, and the kill lands while another partition's batch is being attempted: two
 * batches in flight. (Handled one at a time, no other partition would start before the kill.)
 * Every delivery id arrives, and an id that arrives more than once is the same delivery again
 * (same body: an at-least-once retry), never a second delivery of one alert to one channel.
 */
describe('webhook deliveries across a SIGKILL of the dispatcher', () => {
  let fixture: DistributedFixture;
  let receiver: Server;
  let receiverUrl: string;
  const arrivals: Arrival[] = [];
  const firstAttempts = new Set<string>();
  /** The first request of all, held unanswered until the kill. */
  let held: Held | undefined;
  const distinct = new Set<string>();
  let onDistinct: (count: number) => void = () => undefined;
  const dispatchers: AppProcess[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const id = String(req.headers['webhook-id']);
        const path = req.url ?? '';
        const status = path.startsWith('/fail/') && !firstAttempts.has(id) ? 500 : 200;
        if (!held && arrivals.length === 0) {
          const request: Held = { id, res, closed: false };
          held = request;
          // The dispatcher gives up on it (its timeout) by closing the connection.
          res.on('close', () => (request.closed = true));
          arrivals.push({ id, path, status: 0, body, at: Date.now() });
          return;
        }
        firstAttempts.add(id);
        arrivals.push({ id, path, status, body, at: Date.now() });
        // A short wait, so that deliveries are in flight whenever the kill lands.
        setTimeout(() => {
          res.statusCode = status;
          res.end(status === 200 ? 'ok' : 'first attempt fails');
        }, 20);
        if (status === 200 && !distinct.has(id)) {
          distinct.add(id);
          onDistinct(distinct.size);
        }
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    fixture = await startDistributed({ checks: CHECKS });
  });
  afterAll(async () => {
    for (const dispatcher of dispatchers) await dispatcher.kill('SIGKILL');
    await fixture?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const startDispatcher = () => {
    const dispatcher = spawnApp('dispatcher', {
      ...fixture.env,
      VIGIL_WEBHOOK_ALLOW_PRIVATE: 'true',
      VIGIL_WEBHOOK_RETRY_DELAY_MS: '300',
      // Longer than the run up to the kill: the held request must still be unanswered then.
      VIGIL_WEBHOOK_TIMEOUT_MS: '8000',
    });
    dispatchers.push(dispatcher);
    return dispatcher;
  };

  it('delivers every id, and an id twice only as the same delivery again', async () => {
    const { account, checkIds } = fixture;
    const channelIds: string[] = [];
    for (let k = 0; k < CHANNELS; k++) {
      const path = k < FAILING ? `/fail/${k}` : `/ok/${k}`;
      const created = await account.owner.post('/v1/alert-channels', {
        type: 'WEBHOOK',
        config: { name: `kill ${k}`, url: receiverUrl + path, webhookSecret: 'kill-test-secret' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      channelIds.push(created.body.id);
      for (const checkId of checkIds) {
        const subscribed = await account.owner.put(`/v1/alert-channels/${created.body.id}/subscriptions`, {
          checkId,
          activated: true,
        });
        expect(subscribed.status).toBe(200);
      }
    }

    const readModels = new ReadModels(fixture.vigil.running.platform.stateStore);
    const alerts: AlertEvent[] = [];
    for (const checkId of checkIds) {
      const context = await checkContext(readModels, checkId);
      expect(context).not.toBeNull();
      for (let i = 0; i < ALERTS_PER_CHECK; i++) alerts.push(sampleAlert(account.accountId, context!, 'ALERT_FAILURE'));
    }
    const expected = new Set(alerts.flatMap((alert) => channelIds.map((id) => deliveryIdFor(alert, id))));
    const partitionOf = new Map(
      alerts.flatMap((alert) =>
        channelIds.map((id) => [deliveryIdFor(alert, id), partitionFor(alert.checkId, PARTITIONS)] as const),
      ),
    );
    expect(expected.size).toBe(EXPECTED);
    await fixture.bus.publish(
      fixture.topics.alertEvents,
      alerts.map((alert) => ({ key: alert.checkId, value: JSON.stringify(alert) })),
    );

    // The kill lands from inside the receiver, at an exact count, while others are in flight.
    const first = startDispatcher();
    const killed = new Promise<number>((resolve) => {
      onDistinct = (count) => {
        if (count < KILL_AT) return;
        onDistinct = () => undefined;
        first.child.kill('SIGKILL');
        // Partitions whose alerts reached the receiver, while the held request's batch still waits for it.
        partitionsAtKill = new Set(arrivals.map((arrival) => partitionOf.get(arrival.id)));
        heldAtKill = held !== undefined && !held.closed;
        resolve(arrivals.length);
      };
    });
    let partitionsAtKill = new Set<number | undefined>();
    let heldAtKill = false;
    const arrivalsAtKill = await killed;
    expect(await first.exited).toBe('SIGKILL');
    held?.res.destroy();
    expect(distinct.size).toBeLessThan(EXPECTED);

    const restartedAt = Date.now();
    startDispatcher();
    await eventually(
      async () => distinct.size,
      (n) => n >= EXPECTED,
      150_000,
      200,
    );
    // Vigil's own log, per channel: each delivery recorded as delivered. A retry that the killed
    // process had sent and heard answered, but not yet recorded, is still leased to it: the
    // restarted dispatcher claims it once the lease ends (the attempt timeout + 10 s) and sends
    // it again, so the log can lag the receiver by that much.
    const loggedPerChannel = () =>
      Promise.all(
        channelIds.map(async (id) => {
          const page = await account.owner.get(`/v1/alert-channels/${id}/deliveries?outcome=delivered&limit=1`);
          return Number(page.headers.get('x-total-count'));
        }),
      );
    const lagging = await loggedPerChannel();
    const logged = await eventually(
      loggedPerChannel,
      (counts) => counts.reduce((sum, n) => sum + n, 0) >= EXPECTED,
      60_000,
      500,
    );
    // Anything late or doubled would arrive now.
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    const delivered = arrivals.filter((a) => a.status === 200);
    const byId = new Map<string, Arrival[]>();
    for (const arrival of arrivals) byId.set(arrival.id, [...(byId.get(arrival.id) ?? []), arrival]);
    const unexpected = [...byId.keys()].filter((id) => !expected.has(id));
    const missing = [...expected].filter((id) => !distinct.has(id));
    const repeated = [...byId.values()].filter((list) => list.filter((a) => a.status === 200).length > 1);
    console.log(
      `dispatcher SIGKILL: ${EXPECTED} deliveries expected, ${arrivals.length} requests (${arrivalsAtKill} before the kill), ` +
        `${delivered.length} answered 200, ${distinct.size} distinct ids, ${repeated.length} ids delivered more than once; ` +
        `partitions reached before the kill: ${[...partitionsAtKill].join(', ')}, the first request still held: ${heldAtKill}; ` +
        `delivered in the log per channel when the receiver had every id: ${lagging.join(', ')}, then ${logged.join(', ')}`,
    );
    // Two batches were in flight when the process died: the held request's, and another partition's.
    expect(heldAtKill).toBe(true);
    expect(partitionsAtKill.size).toBeGreaterThanOrEqual(2);
    expect(unexpected).toEqual([]);
    expect(missing).toEqual([]);
    // A repeat is the same delivery again: the same channel path and the same body every time.
    for (const list of byId.values()) {
      expect(new Set(list.map((a) => a.path)).size).toBe(1);
      expect(new Set(list.map((a) => a.body)).size).toBe(1);
    }
    // Only what the killed process had sent and not yet recorded can come again: every repeated id
    // was first delivered before the restart, and the restarted dispatcher delivers no id twice.
    for (const list of repeated) {
      const ok = list.filter((a) => a.status === 200);
      expect(ok[0]!.at).toBeLessThan(restartedAt);
      expect(ok.filter((a) => a.at >= restartedAt).length).toBeLessThanOrEqual(1);
    }
    expect(repeated.length).toBeLessThanOrEqual(arrivalsAtKill);

    // Vigil's own log: each delivery recorded as delivered exactly once, also after the wait.
    expect(await loggedPerChannel()).toEqual(channelIds.map(() => EXPECTED / CHANNELS));
  }, 240_000);
});
