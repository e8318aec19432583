import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, InternalError, UnavailableError, ValidationError, createLogger } from '#core';
import { services, uniqueSuffix } from '#test-support';
import { analyticsStoreContract } from './contract.ts';
import { createAnalyticsStore, createClickHouseAnalyticsStore, sampleCheckResult, sqlString } from './index.ts';

const database = `vigil_test_${uniqueSuffix()}`;
const log = createLogger({ level: 'silent' });
const open = () => createClickHouseAnalyticsStore({ url: services().CLICKHOUSE_URL, database, log });

/** Statements the store refuses to run through query() (it is read-only), straight over HTTP. */
async function admin(sql: string): Promise<string> {
  const response = await fetch(services().CLICKHOUSE_URL, { method: 'POST', body: sql });
  const text = await response.text();
  if (!response.ok) throw new Error(`ClickHouse ${response.status}: ${text}`);
  return text;
}

afterAll(async () => {
  await admin(`DROP DATABASE IF EXISTS ${database}`);
});

analyticsStoreContract('clickhouse', async () => open());

describe('clickhouse analytics store', () => {
  it('collapses copies of a result at read time, before any merge', async () => {
    const store = open();
    await store.migrate();
    const result = sampleCheckResult();
    // Separate inserts make separate parts; no merge has run when the count is taken.
    await store.insert([result]);
    await store.insert([result]);
    await store.insert([result]);
    const idIs = `id = ${sqlString(result.id, 'clickhouse')}`;
    const raw = await store.query<{ n: number }>(`SELECT count() AS n FROM check_results WHERE ${idIs}`);
    expect(raw[0]?.n).toBe(3);
    expect(await store.countResults({ accountId: result.accountId })).toBe(1);
    const seen = await store.query<{ n: number }>(`SELECT count() AS n FROM ${store.source} WHERE ${idIs}`);
    expect(seen[0]?.n).toBe(1);
    await store.close();
  });

  it('keeps query() read-only', async () => {
    const store = open();
    await expect(store.query(`DROP TABLE check_results`)).rejects.toThrow(InternalError);
    await expect(store.query(`DROP TABLE check_results`)).rejects.toThrow(/readonly/i);
    expect(await store.countResults()).toBeGreaterThanOrEqual(0);
    await store.close();
  });

  it('fails fast with UnavailableError when ClickHouse cannot be reached', async () => {
    const port = await closedPort();
    const store = createClickHouseAnalyticsStore({ url: `http://127.0.0.1:${port}`, database, log });
    const started = Date.now();
    await expect(store.ping()).rejects.toBeInstanceOf(UnavailableError);
    await expect(store.migrate()).rejects.toBeInstanceOf(UnavailableError);
    await expect(store.insert([sampleCheckResult()])).rejects.toBeInstanceOf(UnavailableError);
    await expect(store.countResults()).rejects.toBeInstanceOf(UnavailableError);
    expect(Date.now() - started).toBeLessThan(3000);
    await store.close();
  });

  it('refuses a malformed URL or database name at construction', () => {
    expect(() => createClickHouseAnalyticsStore({ url: 'ftp://127.0.0.1', database, log })).toThrow(ConfigError);
    expect(() => createClickHouseAnalyticsStore({ url: services().CLICKHOUSE_URL, database: 'x; DROP', log })).toThrow(
      ValidationError,
    );
  });

  it('is what createAnalyticsStore picks when a ClickHouse URL is set', async () => {
    const store = createAnalyticsStore({
      clickhouseUrl: services().CLICKHOUSE_URL,
      clickhouseDatabase: database,
      dataDir: '/nonexistent',
      log,
    });
    expect(store.dialect).toBe('clickhouse');
    await store.ping();
    await store.close();
  });

  it('documents retention as dropping a monthly partition', async () => {
    const store = open();
    await store.migrate();
    const old = sampleCheckResult({ startedAt: '2024-01-31T23:59:59.999Z' });
    await store.insert([old]);
    expect(await store.countResults({ accountId: old.accountId })).toBe(1);
    await admin(`ALTER TABLE ${database}.check_results DROP PARTITION 202401`);
    expect(await store.countResults({ accountId: old.accountId })).toBe(0);
    await store.close();
  });
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
