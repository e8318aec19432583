import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { createLogger } from '#core';
import { createDuckDbAnalyticsStore } from '../duckdb.ts';
import { toResultRow } from '../row.ts';
import { sampleCheckResult } from '../fixtures.ts';
import { HOUR_MS } from './sql.ts';

// One insert of 200,000 late results (a backfill's bulk request, or a coalesced group of them):
// the maintainer found the earliest with Math.min(...rows), which overflows the stack at this size.
it('re-rolls a 200,000-result late insert', { timeout: 120_000 }, async () => {
  const NOW = Date.parse('2026-03-10T12:30:00Z');
  const store = createDuckDbAnalyticsStore({
    path: ':memory:',
    log: createLogger({ level: 'silent' }),
    clock: () => NOW,
  });
  try {
    await store.migrate();
    const accountId = randomUUID();
    const checkId = randomUUID();
    const start = NOW - 5 * 24 * HOUR_MS;
    const base = sampleCheckResult({ accountId, checkId });
    const late = Array.from({ length: 200_000 }, (_, i) => ({
      ...base,
      id: randomUUID(),
      startedAt: new Date(start + i * 1_000).toISOString(),
      responseTime: (i % 997) + 0.5,
    }));
    expect(toResultRow(late[0]!).started_ms).toBe(start);
    await store.insert(late);
    const rolled = await store.query<{ n: number }>(
      `SELECT sum(runs) AS n FROM ${store.rollups.source} WHERE check_id = '${checkId}' AND metric = ''`,
    );
    expect(Number(rolled[0]!.n)).toBe(200_000);
  } finally {
    await store.close();
  }
});
