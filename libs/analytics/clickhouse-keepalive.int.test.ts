import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { services, uniqueSuffix } from '#test-support';
import { createClickHouseAnalyticsStore, sampleCheckResult } from './index.ts';

// A pooled connection the server has closed (ClickHouse 18.16: keep_alive_timeout 3 s) must never
// be reused: the write fails with EPIPE/ECONNRESET. Raw fetch fails this way here with the event
// loop held busy across the server's timeout; the store must not.
const database = `vigil_test_keepalive_${uniqueSuffix()}`;
const log = createLogger({ level: 'silent' });

async function admin(sql: string): Promise<Response> {
  return fetch(services().CLICKHOUSE_URL, { method: 'POST', body: sql });
}

/** Holds the event loop, as building a large batch does, so no idle timer can fire meanwhile. */
function busyFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // spin
  }
}

afterAll(async () => {
  await admin(`DROP DATABASE IF EXISTS ${database}`);
});

describe('clickhouse analytics store across the server keep-alive timeout', () => {
  it('the server closes idle connections after a few seconds (the premise)', async () => {
    const response = await admin('SELECT 1');
    await response.text();
    const keepAlive = response.headers.get('keep-alive') ?? '';
    const timeout = Number(/timeout=(\d+)/.exec(keepAlive)?.[1]);
    expect(timeout).toBeGreaterThan(0);
    expect(timeout).toBeLessThanOrEqual(10);
  });

  it('inserts and queries after idling past it, with the event loop busy or free', async () => {
    const store = createClickHouseAnalyticsStore({ url: services().CLICKHOUSE_URL, database, log });
    await store.migrate();
    const accountId = randomUUID();
    const batch = () => Array.from({ length: 500 }, () => sampleCheckResult({ accountId }));
    let sent = 0;
    const insert = async () => {
      await store.insert(batch());
      sent += 500;
    };
    await insert();
    // Around and past 3 s: the moments the server closes while the client still holds the socket.
    for (const ms of [2_950, 3_000, 3_050, 3_400]) {
      busyFor(ms);
      await insert();
      busyFor(ms);
      expect(await store.countResults({ accountId })).toBe(sent);
    }
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    await insert();
    expect(await store.countResults({ accountId })).toBe(sent);
    await store.close();
  }, 60_000);
});
