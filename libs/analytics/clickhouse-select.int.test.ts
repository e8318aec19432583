import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { InternalError, createLogger } from '#core';
import { services, uniqueSuffix } from '#test-support';
import { createClickHouseSelect } from './clickhouse-select.ts';
import { createClickHouseAnalyticsStore, sampleCheckResult } from './index.ts';

// Reads go to ClickHouse over undici, not through @clickhouse/client (clickhouse-select.ts).
const database = `vigil_test_select_${uniqueSuffix()}`;
const log = createLogger({ level: 'silent' });
const select = (url = services().CLICKHOUSE_URL) =>
  createClickHouseSelect({ url, database: 'system', timeoutMs: 10_000, keepAliveMs: 2_000 });

afterAll(async () => {
  await fetch(services().CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${database}` });
});

describe('reads straight over HTTP', () => {
  it('returns rows with 64-bit integers as numbers, and an empty answer as no rows', async () => {
    const reads = select();
    expect(await reads.rows(`SELECT toUInt64(42) AS n, 'x' AS s, 1.5 AS f`)).toEqual([{ n: 42, s: 'x', f: 1.5 }]);
    expect(await reads.rows('SELECT number FROM numbers(3) WHERE number > 5')).toEqual([]);
    expect(await reads.rows('SELECT count() AS n FROM numbers(100000)')).toEqual([{ n: 100000 }]);
    await reads.close();
  });

  it('works in the database it was given', async () => {
    const reads = select();
    expect(await reads.rows('SELECT currentDatabase() AS db')).toEqual([{ db: 'system' }]);
    await reads.close();
  });

  it("turns the server's refusals into errors that carry its code, through the store", async () => {
    const store = createClickHouseAnalyticsStore({ url: services().CLICKHOUSE_URL, database, log });
    await store.migrate();
    const syntax = await store.query('SELEC 1').catch((error: unknown) => error);
    expect(syntax).toBeInstanceOf(InternalError);
    expect((syntax as InternalError).details).toEqual({ code: 62 });
    // An error after the first blocks were sent arrives behind a 200 and the rows before it.
    const late = await store
      .query(
        'SELECT number, throwIf(number = 150000) AS t FROM system.numbers LIMIT 200000 SETTINGS max_block_size = 1000',
      )
      .catch((error: unknown) => error);
    expect(late).toBeInstanceOf(InternalError);
    expect((late as InternalError).details).toEqual({ code: 395 });
    await store.close();
  });

  it('sends the credentials in the URL', async () => {
    const url = new URL(services().CLICKHOUSE_URL);
    url.username = 'default';
    // 18.16 has no currentUser(): the server's list of running queries names who sent this one.
    const marker = `who_${uniqueSuffix()}`;
    const sql = `SELECT user FROM system.processes WHERE query LIKE '%${marker}%'`;
    expect(await select(url.toString()).rows(sql)).toEqual([{ user: 'default' }]);
    url.username = 'no_such_user';
    url.password = 'p%40ss';
    await expect(select(url.toString()).rows('SELECT 1')).rejects.toThrow(/^Code: (192|516)\b/);
  });
});

describe('a pooled socket closed before it answers', () => {
  let server: Server;
  const answered = new WeakSet<Socket>();
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends the read again on a new socket, and gives up after three', async () => {
    // A server that answers once per connection, then drops it on the next request without an
    // answer: what a ClickHouse past its keep-alive timeout looks like to a busy client.
    let dropAll = false;
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        if (dropAll || answered.has(request.socket)) return void request.socket.destroy();
        answered.add(request.socket);
        response.writeHead(200, { 'content-type': 'text/plain', 'keep-alive': 'timeout=30' });
        response.end('{"n":1}\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const reads = select(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    expect(await reads.rows('SELECT 1 AS n')).toEqual([{ n: 1 }]);
    expect(await reads.rows('SELECT 1 AS n')).toEqual([{ n: 1 }]);
    expect(await reads.rows('SELECT 1 AS n')).toEqual([{ n: 1 }]);
    dropAll = true;
    await expect(reads.rows('SELECT 1 AS n')).rejects.toThrow(/closed|reset|socket/i);
    await reads.close();
  });
});

describe('the uncompressed cache', () => {
  it('serves a read again from decompressed blocks', async () => {
    const reads = createClickHouseSelect({
      url: services().CLICKHOUSE_URL,
      database,
      timeoutMs: 10_000,
      keepAliveMs: 2_000,
    });
    const store = createClickHouseAnalyticsStore({ url: services().CLICKHOUSE_URL, database, log });
    await store.migrate();
    await store.insert(Array.from({ length: 200 }, () => sampleCheckResult()));
    const hits = async () =>
      Number(
        (
          await reads.rows<{ n: number }>(`SELECT value AS n FROM system.events WHERE event = 'UncompressedCacheHits'`)
        )[0]?.n ?? 0,
      );
    const sql = 'SELECT sum(response_time) AS s FROM check_results';
    await reads.rows(sql);
    const before = await hits();
    await reads.rows(sql);
    expect(await hits()).toBeGreaterThan(before);
    await Promise.all([reads.close(), store.close()]);
  });
});
