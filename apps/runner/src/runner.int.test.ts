import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { applyCheckDefaults, type CheckInput, type CheckResult } from '#domain';
import { createSqliteEventStore, type EventStore } from '#eventstore';
import type { Platform } from '#platform';
import { DueQueue, offsetMs, runResultId, windowStart } from '#scheduling';
import { createRedisStateStore, createSqliteStateStore, type StateStore } from '#statestore';
import { services, uniqueSuffix } from '#test-support';
import { eventually } from '#test-processes';
import { createStartTimes } from './started.ts';
import { startRunner, type Runner } from './runner.ts';

const MIN = 60_000;
const LOCATION = 'eu-west-1';
const LEASE_MS = 10_000;
const log = createLogger({ level: 'silent' });

/** A check id whose planned start in the current minute has passed (by margin ms), so it is due at once. */
function dueNowId(marginMs = 1_500): string {
  for (;;) {
    const id = randomUUID();
    const intoWindow = Date.now() - windowStart(Date.now(), MIN);
    // Not so late in the minute that the window ends while the test looks.
    if (intoWindow > 50_000) continue;
    if (offsetMs(id, MIN) < intoWindow - marginMs) return id;
  }
}

async function waitForFreshMinute(): Promise<void> {
  const into = Date.now() - windowStart(Date.now(), MIN);
  if (into < 10_000 || into > 45_000) {
    await new Promise((resolve) => setTimeout(resolve, ((MIN - into + 10_500) % MIN) + 1));
  }
}

function runnerSuite(name: string, openStore: () => StateStore) {
  describe(`runner on ${name}`, () => {
    let dir: string;
    let eventStore: EventStore;
    let store: StateStore;
    let target: Server;
    let targetUrl: string;
    const runners: Runner[] = [];
    // One registry per replica: either may claim every run of a window.
    const metrics = [new Registry(), new Registry()] as const;
    const results: CheckResult[] = [];
    const accountId = randomUUID();

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'vigil-runner-'));
      eventStore = createSqliteEventStore({ path: join(dir, 'events.sqlite'), log });
      store = openStore();
      target = createServer((req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ok: true, path: req.url }));
      });
      await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
      targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
      // Two replicas of one location, sharing the state store and the event store.
      await Promise.all([start(metrics[0]).ready, start(metrics[1]).ready]);
    });
    afterAll(async () => {
      for (const runner of runners) await runner.stop();
      await new Promise((resolve) => target.close(resolve));
      await store.close();
      await eventStore.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const platform = (): Platform =>
      ({
        eventStore,
        stateStore: store,
        bus: undefined,
        analytics: undefined,
        readiness: [],
        topics: { checkResults: 'r', checkResultsDlq: 'd', alertEvents: 'a' },
        group: (n: string) => n,
        adapters: {},
      }) as Platform;

    const start = (metrics?: Registry) => {
      const runner = startRunner({
        platform: platform(),
        log,
        metrics,
        // The sink under test is the runner's output; the end-to-end suites use the real ones.
        sink: { accept: async (batch) => void results.push(...batch) },
        settings: {
          location: LOCATION,
          defaultLocation: LOCATION,
          allowPrivate: true,
          concurrency: 50,
          accountConcurrency: 10,
          leaseMs: LEASE_MS,
          encryptionKey: 'ab'.repeat(32),
          pollMs: 50,
          drainMs: 2_000,
        },
      });
      runners.push(runner);
      return runner;
    };

    const append = async (
      checkId: string,
      type: string,
      data: Record<string, unknown>,
      eventId = randomUUID(),
      stream = `check-${checkId}`,
    ) => {
      const existing = await eventStore.readStream(stream);
      await eventStore.append(
        stream,
        [
          {
            id: eventId,
            type,
            data,
            metadata: {
              accountId,
              actor: 'test',
              commandId: randomUUID(),
              occurredAt: new Date().toISOString(),
              schemaVersion: 1,
            },
          },
        ],
        existing.length === 0 ? 'no_stream' : existing.length - 1,
      );
    };
    const check = (id: string, overrides: Partial<Record<string, unknown>> = {}) => ({
      id,
      ...applyCheckDefaults({
        name: `check ${id.slice(0, 8)}`,
        checkType: 'API',
        frequency: 1,
        locations: [LOCATION],
        request: { url: `${targetUrl}/${id}`, assertions: [] },
        ...overrides,
      } as CheckInput),
    });
    const create = (id: string, overrides?: Partial<Record<string, unknown>>) =>
      append(id, 'CheckCreated', { accountId, check: check(id, overrides), at: new Date().toISOString() });
    const of = (checkId: string) => results.filter((r) => r.checkId === checkId);
    /** A one-off maintenance window over [now - 1 min, now + 10 min) for the given tags. */
    const maintenance = async (tags: string[], pauseRuns: boolean) => {
      const id = randomUUID();
      const now = new Date().toISOString();
      const window = {
        id,
        name: `window ${id.slice(0, 8)}`,
        tags,
        checkIds: [],
        startsAt: new Date(Date.now() - MIN).toISOString(),
        endsAt: new Date(Date.now() + 10 * MIN).toISOString(),
        repeatInterval: null,
        repeatUnit: null,
        repeatEndsAt: null,
        pauseRuns,
        createdAt: now,
        updatedAt: now,
      };
      await append(id, 'MaintenanceWindowCreated', { accountId, window }, randomUUID(), `maintenance-window-${id}`);
      return async () =>
        append(
          id,
          'MaintenanceWindowDeleted',
          { at: new Date().toISOString() },
          randomUUID(),
          `maintenance-window-${id}`,
        );
    };

    it('two replicas run each due check exactly once in its window, with the deterministic id', async () => {
      await waitForFreshMinute();
      const ids = Array.from({ length: 20 }, () => dueNowId());
      const window = windowStart(Date.now(), MIN);
      for (const id of ids) await create(id);
      await eventually(
        async () => ids.filter((id) => of(id).length > 0).length,
        (n) => n === ids.length,
        15_000,
      );
      // Both replicas keep claiming for a while: nothing runs twice in the window.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      for (const id of ids) {
        expect(of(id)).toHaveLength(1);
        const [result] = of(id);
        expect(result!.id).toBe(runResultId(id, LOCATION, window));
        expect(result).toMatchObject({ checkType: 'API', runLocation: LOCATION, hasFailures: false, statusCode: 200 });
      }
      // Rescheduled for the next window.
      const queue = new DueQueue(store, LOCATION);
      for (const id of ids.slice(0, 3)) {
        expect(await queue.score(id)).toBe(window + MIN + offsetMs(id, MIN));
      }
      const texts = await Promise.all(metrics.map((registry) => registry.metrics()));
      const passed = texts
        .map((text) => Number(/^vigil_runner_runs_total\{type="API",outcome="passed"\} (\d+)/m.exec(text)?.[1] ?? 0))
        .reduce((sum, n) => sum + n, 0);
      expect(passed).toBeGreaterThanOrEqual(ids.length);
      expect(texts.join('\n')).toContain('vigil_runner_schedule_delay_seconds_bucket');
      for (const text of texts) expect(text).toContain('vigil_runner_runs_in_flight');
    });

    it('takes over a window whose claimer died, with the same result id, once its lease ends', async () => {
      await waitForFreshMinute();
      const id = dueNowId();
      const window = windowStart(Date.now(), MIN);
      // A replica took the check's creation (the gate), scheduled its window, claimed it and died.
      const queue = new DueQueue(store, LOCATION);
      const eventId = randomUUID();
      expect(await queue.firstToApply(eventId)).toBe(true);
      // Due a moment ahead, so the live replicas (claiming at the real now) cannot take it first; the
      // dead claimer claims at that moment. Entries of earlier tests that are due too (replicas lag
      // under load) are put back as they were, so only this check's window is left leased.
      const due = Date.now() + 1_500;
      await queue.schedule([{ checkId: id, slot: { kind: 'run', window }, due }]);
      const taken = await queue.claim(due, LEASE_MS, 1_000);
      const dead = taken.filter((c) => c.checkId === id);
      for (const other of taken)
        if (other.checkId !== id && other.slot)
          await queue.schedule([{ checkId: other.checkId, slot: other.slot, due: other.due }]);
      expect(dead.map((c) => c.checkId)).toEqual([id]);
      const claimedAt = Date.now();
      // It had started the run (and may have written its result) before dying.
      const deadStart = new Date(claimedAt);
      await createStartTimes(store, LOCATION, LEASE_MS)(runResultId(id, LOCATION, window), deadStart);
      await append(id, 'CheckCreated', { accountId, check: check(id), at: new Date().toISOString() }, eventId);
      await eventually(
        async () => of(id).length,
        (n) => n === 1,
        LEASE_MS + 10_000,
      );
      expect(Date.now() - claimedAt).toBeGreaterThanOrEqual(LEASE_MS - 100);
      expect(of(id)[0]!.id).toBe(runResultId(id, LOCATION, window));
      // The repeat reports the first attempt's start, so stores keyed by (start, id) keep one row.
      expect(of(id)[0]!.startedAt).toBe(deadStart.toISOString());
    });

    it('after a long stop runs only the current window, never the windows it missed', async () => {
      await waitForFreshMinute();
      const id = dueNowId();
      const now = Date.now();
      const current = windowStart(now, MIN);
      const queue = new DueQueue(store, LOCATION);
      // As if the runners had been down for ten minutes: the queued window is long past.
      const eventId = randomUUID();
      expect(await queue.firstToApply(eventId)).toBe(true);
      await queue.schedule([{ checkId: id, slot: { kind: 'run', window: current - 10 * MIN }, due: now - 9 * MIN }]);
      await append(id, 'CheckCreated', { accountId, check: check(id), at: new Date().toISOString() }, eventId);
      await eventually(
        async () => of(id).length,
        (n) => n >= 1,
        10_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      // The missed windows were skipped: only the current one ran, once.
      expect(of(id).map((r) => r.id)).toEqual([runResultId(id, LOCATION, current)]);
      expect(await queue.score(id)).toBe(current + MIN + offsetMs(id, MIN));
    });

    it('stops a deactivated or deleted check within 2 s, and skips external checks', async () => {
      const queue = new DueQueue(store, LOCATION);
      const paused = randomUUID();
      const deleted = randomUUID();
      const external = randomUUID();
      const elsewhere = randomUUID();
      await create(paused);
      await create(deleted);
      await create(external, { request: undefined });
      await create(elsewhere, { locations: ['us-east-1'] });
      await eventually(
        async () => [await queue.score(paused), await queue.score(deleted)],
        (scores) => scores.every((s) => s !== null),
        2_000,
      );
      expect(await queue.score(external)).toBeNull();
      expect(await queue.score(elsewhere)).toBeNull();
      await append(paused, 'CheckUpdated', {
        check: check(paused, { activated: false }),
        at: new Date().toISOString(),
      });
      await append(deleted, 'CheckDeleted', { at: new Date().toISOString() });
      await eventually(
        async () => [await queue.score(paused), await queue.score(deleted)],
        (scores) => scores.every((s) => s === null),
        2_000,
        50,
      );
    });

    it('skips the scheduled run of a check a pausing maintenance window covers; a window that does not pause lets it run', async () => {
      await waitForFreshMinute();
      const suffix = uniqueSuffix();
      await maintenance([`paused-${suffix}`], true);
      await maintenance([`quiet-${suffix}`], false);
      const paused = dueNowId();
      const quiet = dueNowId();
      const plain = dueNowId();
      const window = windowStart(Date.now(), MIN);
      await create(paused, { tags: [`paused-${suffix}`] });
      await create(quiet, { tags: [`quiet-${suffix}`] });
      await create(plain, { tags: ['other'] });
      await eventually(
        async () => [of(quiet).length, of(plain).length],
        (counts) => counts.every((n) => n === 1),
        15_000,
      );
      const queue = new DueQueue(store, LOCATION);
      // The paused check's window was skipped, not delayed: it is queued for the next one.
      await eventually(
        async () => queue.score(paused),
        (score) => score === window + MIN + offsetMs(paused, MIN),
        5_000,
      );
      expect(of(paused)).toHaveLength(0);
    });

    it('reports no missed heartbeat while a pausing window covers it, and reports again once the window is deleted', async () => {
      const silent = randomUUID();
      const tag = `hb-${uniqueSuffix()}`;
      const end = await maintenance([tag], true);
      const heartbeat = { period: 1, periodUnit: 'seconds', grace: 1, graceUnit: 'seconds' };
      await append(silent, 'CheckCreated', {
        accountId,
        check: {
          ...check(silent, { checkType: 'HEARTBEAT', request: undefined, locations: [], tags: [tag] }),
          locations: [LOCATION],
          heartbeat: { ...heartbeat, pingToken: silent.replaceAll('-', '') },
        },
        at: new Date().toISOString(),
      });
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      expect(of(silent)).toHaveLength(0);
      await end();
      await eventually(
        async () => of(silent).length,
        (n) => n >= 1,
        15_000,
      );
      expect(of(silent).every((r) => r.hasFailures && r.heartbeat?.status === 'FAILING')).toBe(true);
    });

    it('reports one FAILING heartbeat result per missed period, and none while pinged', async () => {
      const pinged = randomUUID();
      const silent = randomUUID();
      const heartbeat = { period: 2, periodUnit: 'seconds', grace: 1, graceUnit: 'seconds', pingToken: 'x'.repeat(24) };
      const hb = (id: string) => ({
        ...check(id, { checkType: 'HEARTBEAT', request: undefined, locations: [] }),
        locations: [LOCATION],
        heartbeat: { ...heartbeat, pingToken: `${id.replaceAll('-', '')}` },
      });
      const at = new Date().toISOString();
      await append(pinged, 'CheckCreated', { accountId, check: hb(pinged), at });
      await append(silent, 'CheckCreated', { accountId, check: hb(silent), at });
      const pinger = setInterval(
        () => void store.set(`heartbeat:last:${pinged}`, new Date().toISOString()).catch(() => undefined),
        500,
      );
      try {
        await eventually(
          async () => of(silent).length,
          (n) => n >= 2,
          15_000,
        );
      } finally {
        clearInterval(pinger);
      }
      const failing = of(silent);
      expect(
        failing.every((r) => r.checkType === 'HEARTBEAT' && r.hasFailures && r.heartbeat?.status === 'FAILING'),
      ).toBe(true);
      expect(new Set(failing.map((r) => r.id)).size).toBe(failing.length);
      expect(of(pinged)).toHaveLength(0);
    });
  });
}

runnerSuite('SQLite', () =>
  createSqliteStateStore({ path: join(tmpdir(), `runner-state-${uniqueSuffix()}.sqlite`), log }),
);
runnerSuite('Redis', () =>
  createRedisStateStore({ url: services().REDIS_URL, keyPrefix: `vigil-test-runner-${uniqueSuffix()}:`, log }),
);
