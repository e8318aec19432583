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
import { offsetMs, runResultId, skippedLastHour, windowStart } from '#scheduling';
import { createRedisStateStore, createSqliteStateStore, type StateStore } from '#statestore';
import { services, uniqueSuffix } from '#test-support';
import { eventually } from '#test-processes';
import { startRunner, type Runner } from './runner.ts';

const MIN = 60_000;
const LOCATION = 'fair-1';
const log = createLogger({ level: 'silent' });
/** One run at a time, each this long: 40 checks due at once are 12 s of work, over twice the 5 s a run may be late. */
const SLOW_MS = 300;

/** A check id whose planned start this minute has passed, early enough in the minute for the test to finish in it. */
function dueNowId(): string {
  for (;;) {
    const id = randomUUID();
    const into = Date.now() - windowStart(Date.now(), MIN);
    if (offsetMs(id, MIN) < into - 500) return id;
  }
}

/**
 * Issue 29, item 2: two accounts on one saturated runner, one with 40 checks due at once and one
 * with 3 due just after them. First come first served would skip the small account's runs with
 * the big one's; the fair rule runs all of the small account's and skips only the big one's.
 */
function fairnessSuite(name: string, openStore: () => StateStore) {
  describe(`fair claims across accounts on ${name}`, () => {
    let dir: string;
    let eventStore: EventStore;
    let store: StateStore;
    let target: Server;
    let runner: Runner;
    const results: CheckResult[] = [];
    const metrics = new Registry();

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'vigil-fair-'));
      eventStore = createSqliteEventStore({ path: join(dir, 'events.sqlite'), log });
      store = openStore();
      target = createServer((_req, res) => setTimeout(() => res.end('{}'), SLOW_MS));
      await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      await runner?.stop();
      target.closeAllConnections();
      await new Promise((resolve) => target.close(resolve));
      await store.close();
      await eventStore.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const create = async (accountId: string, id: string) => {
      const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/${id}`;
      const check = {
        id,
        ...applyCheckDefaults({
          name: id,
          checkType: 'API',
          frequency: 1,
          locations: [LOCATION],
          request: { url, assertions: [] },
        } as CheckInput),
      };
      const at = new Date().toISOString();
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
    };

    it('runs every run of the small account while the big one is skipped', async () => {
      // Early in a minute, so the window cannot end while the runs are decided.
      const into = Date.now() - windowStart(Date.now(), MIN);
      if (into > 20_000) await new Promise((resolve) => setTimeout(resolve, MIN - into + 5_000));
      const window = windowStart(Date.now(), MIN);
      const big = randomUUID();
      const small = randomUUID();
      const bigIds = Array.from({ length: 40 }, () => dueNowId());
      const smallIds = Array.from({ length: 3 }, () => dueNowId());
      // All in the event store before the runner starts: queued together, the big account's first.
      for (const id of bigIds) await create(big, id);
      for (const id of smallIds) await create(small, id);
      runner = startRunner({
        platform: {
          eventStore,
          stateStore: store,
          readiness: [],
          topics: { checkResults: 'r', checkResultsDlq: 'd', alertEvents: 'a' },
          group: (n: string) => n,
          adapters: {},
        } as unknown as Platform,
        log,
        metrics,
        sink: { accept: async (batch) => void results.push(...batch) },
        settings: {
          location: LOCATION,
          defaultLocation: LOCATION,
          allowPrivate: true,
          concurrency: 1,
          accountConcurrency: 1,
          leaseMs: 30_000,
          encryptionKey: 'ab'.repeat(32),
          pollMs: 20,
        },
      });
      await runner.ready;
      const skippedOf = async (ids: string[]) =>
        (await Promise.all(ids.map((id) => skippedLastHour(store, LOCATION, id, MIN, Date.now())))).reduce(
          (sum, s) => sum + s.lastHour,
          0,
        );
      const ran = (ids: string[]) =>
        ids.filter((id) => results.some((r) => r.id === runResultId(id, LOCATION, window))).length;
      // Every one of the big account's checks is run or skipped in this window.
      await eventually(
        async () => ran(bigIds) + (await skippedOf(bigIds)),
        (n) => n === bigIds.length,
        45_000,
        200,
      );
      await eventually(
        async () => ran(smallIds) + (await skippedOf(smallIds)),
        (n) => n === smallIds.length,
        10_000,
        200,
      );
      expect(await skippedOf(bigIds)).toBeGreaterThan(0);
      expect(runner.saturation()).toMatchObject({ location: LOCATION, saturated: true });
      // The small account lost nothing.
      expect(await skippedOf(smallIds)).toBe(0);
      expect(ran(smallIds)).toBe(smallIds.length);
    }, 120_000);
  });
}

fairnessSuite('SQLite', () =>
  createSqliteStateStore({ path: join(tmpdir(), `runner-fair-${uniqueSuffix()}.sqlite`), log }),
);
fairnessSuite('Redis', () =>
  createRedisStateStore({ url: services().REDIS_URL, keyPrefix: `vigil-test-fair-${uniqueSuffix()}:`, log }),
);
