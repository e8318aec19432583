import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { applyCheckDefaults, type CheckInput, type CheckResult } from '#domain';
import { createSqliteEventStore, type EventStore } from '#eventstore';
import type { Platform } from '#platform';
import { offsetMs, runResultId, windowStart } from '#scheduling';
import { createRedisStateStore, type StateStore } from '#statestore';
import { services, uniqueSuffix } from '#test-support';
import { eventually } from '#test-processes';
import { startRunner, type Runner } from './runner.ts';

const MIN = 60_000;
const LOCATION = 'scale-1';
const LEASE_MS = 10_000;
const CHECKS = 20;
const log = createLogger({ level: 'silent' });

/**
 * Issue 29, item 3: replicas share a location's queue on Redis. Two replicas (two runs at a time
 * each, runs of 1 s) start on 20 checks due at once; a third started a moment later takes part of
 * that same window's work within one lease, and every check still runs exactly once.
 */
describe('a replica started mid-run takes its share', () => {
  let dir: string;
  let eventStore: EventStore;
  let store: StateStore;
  let target: Server;
  const runners: Runner[] = [];
  const results: CheckResult[][] = [[], [], []];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-replicas-'));
    eventStore = createSqliteEventStore({ path: join(dir, 'events.sqlite'), log });
    store = createRedisStateStore({
      url: services().REDIS_URL,
      keyPrefix: `vigil-test-replicas-${uniqueSuffix()}:`,
      log,
    });
    target = createServer((_req, res) => setTimeout(() => res.end('{}'), 1_000));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const runner of runners) await runner.stop();
    target.closeAllConnections();
    await new Promise((resolve) => target.close(resolve));
    await store.close();
    await eventStore.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (replica: number) => {
    const runner = startRunner({
      platform: {
        eventStore,
        stateStore: store,
        readiness: [],
        topics: { checkResults: 'r', checkResultsDlq: 'd', alertEvents: 'a' },
        group: (n: string) => n,
        adapters: {},
      } as unknown as Platform,
      log,
      sink: { accept: async (batch) => void results[replica]!.push(...batch) },
      settings: {
        location: LOCATION,
        defaultLocation: LOCATION,
        allowPrivate: true,
        concurrency: 2,
        accountConcurrency: 2,
        leaseMs: LEASE_MS,
        encryptionKey: 'ab'.repeat(32),
        pollMs: 20,
        // A busy host must not turn this test's runs into skips: lateness is not what it is about.
        maxLateness: 1,
      },
    });
    runners.push(runner);
    return runner;
  };

  it('runs part of the window on the new replica within a lease, and every check once', async () => {
    const into = Date.now() - windowStart(Date.now(), MIN);
    if (into > 30_000) await new Promise((resolve) => setTimeout(resolve, MIN - into + 3_000));
    const window = windowStart(Date.now(), MIN);
    await Promise.all([start(0).ready, start(1).ready]);
    const accountId = randomUUID();
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    const ids: string[] = [];
    while (ids.length < CHECKS) {
      const id = randomUUID();
      if (offsetMs(id, MIN) < Date.now() - window - 500) ids.push(id);
    }
    for (const id of ids) {
      const at = new Date().toISOString();
      const check = {
        id,
        ...applyCheckDefaults({
          name: id,
          checkType: 'API',
          frequency: 1,
          locations: [LOCATION],
          request: { url: `${url}/${id}`, assertions: [] },
        } as CheckInput),
      };
      await eventStore.append(
        `check-${id}`,
        [
          {
            id: randomUUID(),
            type: 'CheckCreated',
            data: { accountId, check, at },
            metadata: { accountId, actor: 'test', commandId: randomUUID(), occurredAt: at, schemaVersion: 1 },
          },
        ],
        'no_stream',
      );
    }
    // The first two are busy with the window (four runs at a time for twenty runs of a second).
    await eventually(
      async () => results[0]!.length + results[1]!.length,
      (n) => n >= 2,
      10_000,
      50,
    );
    const third = start(2);
    await third.ready;
    // Within one lease of joining (the bound of this wait), the third replica has run part of the window.
    await eventually(
      async () => results[2]!.length,
      (n) => n >= 1,
      LEASE_MS,
      50,
    );
    const all = () => results.flat().filter((r) => ids.includes(r.checkId));
    await eventually(
      async () => new Set(all().map((r) => r.checkId)).size,
      (n) => n === CHECKS,
      20_000,
      100,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // Exactly once: one result per check, with the window's id, whichever replica ran it.
    expect(all()).toHaveLength(CHECKS);
    for (const id of ids)
      expect(
        all()
          .filter((r) => r.checkId === id)
          .map((r) => r.id),
      ).toEqual([runResultId(id, LOCATION, window)]);
    expect(results[2]!.length).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
