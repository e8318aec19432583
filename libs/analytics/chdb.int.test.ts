import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { uniqueSuffix } from '#test-support';
import { chdbVersion, createChdbAnalyticsStore } from './chdb-engine.ts';
import { analyticsStoreContract } from './contract.ts';

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
});
