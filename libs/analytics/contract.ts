import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalError, ValidationError } from '#core';
import type { CheckResult } from '#domain';
import { clickHouseMigrations } from './clickhouse-schema.ts';
import { duckDbMigrations } from './duckdb-schema.ts';
import { sampleCheckResult } from './fixtures.ts';
import type { AnalyticsStore } from './port.ts';
import { RESULT_COLUMNS } from './row.ts';
import { sqlDateTime, sqlString } from './sql.ts';

/** Strings that break naive escaping in one engine or the other. */
export const hostileStrings = [
  "it's",
  'back\\slash at the end\\',
  'double "quotes"',
  'nul\0byte',
  'new\nline\r\ttab',
  "'; DROP TABLE check_results; --",
  "\\'",
  '\\0 \\n \\x41: backslash escapes, literally',
  'unicode ✓ 😀 \u2028 \u{10FFFF} ü',
  '\x01\x1f\x7f control',
  '${x} {p:String} ? $1 %s',
] as const;

/** The behaviour every AnalyticsStore adapter must share. The factory returns an unmigrated store. */
export function analyticsStoreContract(name: string, factory: () => Promise<AnalyticsStore>): void {
  describe(`AnalyticsStore contract: ${name}`, () => {
    let store: AnalyticsStore;
    const where = (column: string, value: string) => `${column} = ${sqlString(value, store.dialect)}`;
    const byAccount = <T>(accountId: string, columns: string, suffix = '') =>
      store.query<T>(`SELECT ${columns} FROM ${store.source} WHERE ${where('account_id', accountId)}${suffix}`);

    beforeAll(async () => {
      store = await factory();
      await store.migrate();
    });
    afterAll(async () => {
      await store?.close();
    });

    it('migrates again without error and records each version once', async () => {
      await store.migrate();
      await store.migrate();
      const rows = await store.query<{ version: number; n: number }>(
        'SELECT version, count(*) AS n FROM schema_migrations GROUP BY version ORDER BY version',
      );
      const migrations = store.dialect === 'clickhouse' ? clickHouseMigrations : duckDbMigrations;
      expect(rows).toEqual(migrations.map((migration) => ({ version: migration.version, n: 1 })));
      expect(rows.length).toBeGreaterThanOrEqual(2);
    });

    it('has exactly the columns the row mapping writes', async () => {
      const sql =
        store.dialect === 'clickhouse'
          ? "SELECT name FROM system.columns WHERE database = currentDatabase() AND table = 'check_results'"
          : "SELECT column_name AS name FROM information_schema.columns WHERE table_name = 'check_results'";
      const names = (await store.query<{ name: string }>(sql)).map((row) => row.name);
      expect([...names].sort()).toEqual([...RESULT_COLUMNS].sort());
    });

    it('inserts and counts by account and by check', async () => {
      const accountId = randomUUID();
      const [checkA, checkB] = [randomUUID(), randomUUID()];
      const results = [
        ...Array.from({ length: 3 }, () => sampleCheckResult({ accountId, checkId: checkA })),
        ...Array.from({ length: 2 }, () => sampleCheckResult({ accountId, checkId: checkB })),
      ];
      const before = await store.countResults();
      await store.insert(results);
      expect(await store.countResults({ accountId })).toBe(5);
      expect(await store.countResults({ accountId, checkId: checkA })).toBe(3);
      expect(await store.countResults({ checkId: checkB })).toBe(2);
      expect(await store.countResults({ accountId, checkId: checkB.toUpperCase() })).toBe(2);
      expect(await store.countResults({ accountId: randomUUID() })).toBe(0);
      expect(await store.countResults()).toBe(before + 5);
    });

    it('counts a result repeated within one batch once', async () => {
      const accountId = randomUUID();
      const once = sampleCheckResult({ accountId });
      await store.insert([once, once, sampleCheckResult({ accountId }), once]);
      expect(await store.countResults({ accountId })).toBe(2);
    });

    it('counts a redelivered batch once, in counts and in aggregates', async () => {
      const accountId = randomUUID();
      const results = Array.from({ length: 15 }, (_, n) => sampleCheckResult({ accountId, responseTime: n + 1 }));
      await store.insert(results.slice(0, 10));
      await store.insert(results.slice(5));
      await store.insert(results.slice(0, 10));
      expect(await store.countResults({ accountId })).toBe(15);
      const [row] = await byAccount<{ n: number; total: number }>(
        accountId,
        'count(*) AS n, sum(response_time) AS total',
      );
      expect(row).toEqual({ n: 15, total: (15 * 16) / 2 });
    });

    it('ignores an empty batch', async () => {
      await expect(store.insert([])).resolves.toBeUndefined();
    });

    it('refuses an invalid result with a ValidationError naming it, and stores none of the batch', async () => {
      const accountId = randomUUID();
      const bad = { ...sampleCheckResult({ accountId }), responseTime: Number.NaN } as CheckResult;
      const error = await store.insert([sampleCheckResult({ accountId }), bad]).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as Error).message).toMatch(/^results\[1\]\.responseTime: /);
      const badId = { ...sampleCheckResult({ accountId }), id: "x' OR '1'='1" } as CheckResult;
      await expect(store.insert([badId])).rejects.toThrow(/^results\[0\]\.id: /);
      expect(await store.countResults({ accountId })).toBe(0);
    });

    it('refuses a filter that is not a UUID', async () => {
      await expect(store.countResults({ accountId: "x' OR 1=1 --" })).rejects.toBeInstanceOf(ValidationError);
    });

    it('answers SQL it cannot run with an InternalError, not a driver error', async () => {
      const error = await store.query('SELECT no_such_column FROM check_results').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InternalError);
      expect((error as Error).message).toMatch(/no_such_column/);
    });

    it('inserts 10,000 rows in one call', { timeout: 120_000 }, async () => {
      const accountId = randomUUID();
      const checkId = randomUUID();
      const start = Date.parse('2025-01-15T00:00:00Z');
      const results = Array.from({ length: 10_000 }, (_, n) =>
        sampleCheckResult({
          accountId,
          checkId,
          startedAt: new Date(start + n * 60_000).toISOString(),
          responseTime: n % 500,
        }),
      );
      await store.insert(results);
      expect(await store.countResults({ accountId, checkId })).toBe(10_000);
      const [row] = await byAccount<{ n: number }>(
        accountId,
        'count(*) AS n',
        ` AND started_at >= ${sqlDateTime(new Date(start + 5000 * 60_000))}`,
      );
      expect(row?.n).toBe(5000);
    });

    it('reads every hostile literal sqlString makes back as the same string', async () => {
      for (const text of hostileStrings) {
        expect(await store.query(`SELECT ${sqlString(text, store.dialect)} AS v`)).toEqual([{ v: text }]);
      }
    });

    it('round-trips hostile strings unchanged, and finds them by value', async () => {
      const accountId = randomUUID();
      const results = hostileStrings.map((text) =>
        sampleCheckResult({
          accountId,
          errorMessage: text,
          statusText: text,
          ssl: { daysRemaining: 1, domain: text },
          // runLocation refuses control characters; everything else must survive.
          runLocation: text.replace(/\p{Cc}/gu, '') || 'x',
        }),
      );
      await store.insert(results);
      for (const result of results) {
        const found = await byAccount<{
          error_message: string;
          status_text: string;
          ssl_domain: string;
          run_location: string;
        }>(
          accountId,
          'error_message, status_text, ssl_domain, run_location',
          ` AND ${where('error_message', result.errorMessage ?? '')} AND ${where('run_location', result.runLocation)}`,
        );
        expect(found).toEqual([
          {
            error_message: result.errorMessage,
            status_text: result.errorMessage,
            ssl_domain: result.errorMessage,
            run_location: result.runLocation,
          },
        ]);
      }
    });

    it('stores browser pages as parallel arrays that unnest into one row per page', async () => {
      const accountId = randomUUID();
      const pages = [
        { index: 1, url: "https://example.com/it's", LCP: 900, consoleErrors: 1 },
        {
          index: 0,
          url: 'https://example.com/',
          TTFB: 80,
          FCP: 300,
          LCP: 500,
          CLS: 0.1,
          TBT: 40,
          networkErrors: 2,
          userScriptErrors: 3,
          documentErrors: 4,
        },
      ];
      const first = sampleCheckResult({ accountId, checkType: 'BROWSER', pages });
      await store.insert([
        first,
        sampleCheckResult({ accountId, checkType: 'BROWSER', pages }),
        sampleCheckResult({ accountId, checkType: 'BROWSER' }),
      ]);

      const [row] = await byAccount(
        accountId,
        'page_index, page_url, page_ttfb, page_fcp, page_lcp, page_cls, page_tbt, page_console_errors, page_network_errors, page_user_script_errors, page_document_errors',
        ` AND ${where('id', first.id)}`,
      );
      expect(row).toEqual({
        page_index: [0, 1],
        page_url: ['https://example.com/', "https://example.com/it's"],
        page_ttfb: [80, null],
        page_fcp: [300, null],
        page_lcp: [500, 900],
        page_cls: [0.1, null],
        page_tbt: [40, null],
        page_console_errors: [0, 1],
        page_network_errors: [2, 0],
        page_user_script_errors: [3, 0],
        page_document_errors: [4, 0],
      });

      const perPage =
        store.dialect === 'clickhouse'
          ? `SELECT page AS idx, count() AS runs, avg(page_lcp_value) AS lcp FROM ${store.source} ARRAY JOIN page_index AS page, page_lcp AS page_lcp_value WHERE ${where('account_id', accountId)} GROUP BY idx ORDER BY idx`
          : `SELECT idx, count(*) AS runs, avg(lcp) AS lcp FROM (SELECT unnest(page_index) AS idx, unnest(page_lcp) AS lcp FROM ${store.source} WHERE ${where('account_id', accountId)}) GROUP BY idx ORDER BY idx`;
      expect(await store.query(perPage)).toEqual([
        { idx: 0, runs: 2, lcp: 500 },
        { idx: 1, runs: 2, lcp: 900 },
      ]);
    });

    it("stores each check type's optional fields, and NULL where a field is absent", async () => {
      const accountId = randomUUID();
      const startedAt = '2025-02-03T04:05:06.789Z';
      const common = { accountId, startedAt };
      const api = sampleCheckResult({
        ...common,
        checkType: 'API',
        statusCode: 503,
        statusText: 'Service Unavailable',
        hasFailures: true,
        isDegraded: true,
        attempts: 3,
        timings: { wait: 1, dns: 2, tcp: 3, firstByte: 4, download: 5, total: 15.5, connection: 6, data: 7 },
        ssl: { daysRemaining: -2, domain: 'example.com' },
      });
      const heartbeat = sampleCheckResult({
        ...common,
        checkType: 'HEARTBEAT',
        heartbeat: { status: 'GRACE' },
        responseTime: 0,
      });
      const tcp = sampleCheckResult({
        ...common,
        checkType: 'TCP',
        runLocation: 'us-east-1',
        timings: { connection: 12 },
      });
      await store.insert([api, heartbeat, tcp]);

      const columns =
        'check_type, started_at, started_ms, run_location, has_failures, is_degraded, response_time, attempts, error_message, status_code, status_text, ' +
        'timing_wait, timing_dns, timing_tcp, timing_first_byte, timing_download, timing_total, timing_connection, timing_data, ' +
        'heartbeat_status, ssl_days_remaining, ssl_domain';
      const rows = await byAccount<Record<string, unknown>>(accountId, columns, ' ORDER BY check_type');
      const none = {
        error_message: null,
        status_code: null,
        status_text: null,
        heartbeat_status: null,
        ssl_days_remaining: null,
        ssl_domain: null,
      };
      const noTimings = {
        timing_wait: null,
        timing_dns: null,
        timing_tcp: null,
        timing_first_byte: null,
        timing_download: null,
        timing_total: null,
        timing_connection: null,
        timing_data: null,
      };
      const time = { started_at: '2025-02-03 04:05:06', started_ms: Date.parse(startedAt) };
      expect(rows).toEqual([
        {
          ...time,
          check_type: 'API',
          run_location: 'eu-west-1',
          has_failures: 1,
          is_degraded: 1,
          response_time: 120,
          attempts: 3,
          error_message: null,
          status_code: 503,
          status_text: 'Service Unavailable',
          timing_wait: 1,
          timing_dns: 2,
          timing_tcp: 3,
          timing_first_byte: 4,
          timing_download: 5,
          timing_total: 15.5,
          timing_connection: 6,
          timing_data: 7,
          heartbeat_status: null,
          ssl_days_remaining: -2,
          ssl_domain: 'example.com',
        },
        {
          ...time,
          ...none,
          ...noTimings,
          check_type: 'HEARTBEAT',
          run_location: 'eu-west-1',
          has_failures: 0,
          is_degraded: 0,
          response_time: 0,
          attempts: 1,
          heartbeat_status: 'GRACE',
        },
        {
          ...time,
          ...none,
          ...noTimings,
          check_type: 'TCP',
          run_location: 'us-east-1',
          has_failures: 0,
          is_degraded: 0,
          response_time: 120,
          attempts: 1,
          timing_connection: 12,
        },
      ]);
    });
  });
}
