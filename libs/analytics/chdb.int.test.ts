import { afterAll, describe, expect, it } from 'vitest';
import { InternalError, createLogger } from '#core';
import { uniqueSuffix } from '#test-support';
import { chdbVersion, createChdbAnalyticsStore } from './chdb-engine.ts';
import { analyticsStoreContract } from './contract.ts';
import { sampleCheckResult } from './fixtures.ts';

// ClickHouse 26.x in process (npm chdb), through the same @clickhouse/client adapter as the
// 18.16 server. chdb's native library ships inside the package; no service is needed.
const log = createLogger({ level: 'silent' });
const database = `vigil_test_${uniqueSuffix()}`;
const open = () => createChdbAnalyticsStore({ database, log });

analyticsStoreContract('clickhouse 26.x (chdb)', async () => open());

describe('chdb engine', () => {
  const store = open();
  afterAll(() => store.close());

  it('loads the native library and is the current ClickHouse', async () => {
    await store.migrate();
    const version = await chdbVersion(store);
    expect(Number(version.split('.')[0])).toBeGreaterThanOrEqual(25);
  });

  // Reads go straight to chdb's session (chdbSelect), not through the client.
  it('reads in its own database while another store in the process uses another', async () => {
    const other = createChdbAnalyticsStore({ database: `${database}_other`, log });
    await other.migrate();
    await other.insert([sampleCheckResult()]);
    await store.migrate();
    expect(await other.query('SELECT currentDatabase() AS db, count() AS n FROM check_results')).toEqual([
      { db: `${database}_other`, n: 1 },
    ]);
    expect(await store.query('SELECT currentDatabase() AS db, toUInt64(42) AS big')).toEqual([
      { db: database, big: 42 },
    ]);
    await other.close();
  });

  // A server runs the statements of its HTTP pool side by side; one chdb connection would not.
  it('runs reads side by side: a quick read is not queued behind a slow one', async () => {
    await store.migrate();
    const order: string[] = [];
    const slow = store.query('SELECT sleep(1) AS s').then(() => order.push('slow'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const quick = store.query('SELECT 1 AS one').then(() => order.push('quick'));
    await Promise.all([slow, quick]);
    expect(order).toEqual(['quick', 'slow']);
  });

  it('keeps query() read-only, and turns refusals into errors with the server code', async () => {
    await store.migrate();
    const drop = await store.query('DROP TABLE check_results').catch((error: unknown) => error);
    expect(drop).toBeInstanceOf(InternalError);
    expect((drop as InternalError).details).toEqual({ code: 164 });
    expect(
      await store.query(
        "SELECT count() AS n FROM system.tables WHERE database = currentDatabase() AND name = 'check_results'",
      ),
    ).toEqual([{ n: 1 }]);
    const syntax = await store.query('SELEC 1').catch((error: unknown) => error);
    expect(syntax).toBeInstanceOf(InternalError);
    expect((syntax as InternalError).details).toEqual({ code: 62 });
  });
});
