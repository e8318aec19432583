/**
 * Where the API's time goes on a one-check analytics query on DuckDB (issue 16, item 5): the
 * matrix's 30-day "one value" cells (3 and 12 metrics) on a small load with the matrix's rows per
 * check, timed through HTTP (a miss, then the same request again, a cache hit: the API without
 * the engine), through the reader alone, and as the reader's raw SQL, one after the other per
 * request so load changes hit all of them alike. With --cpu-prof, a V8 profile of the HTTP loop is written
 * (summarise it with `npm run bench -- profile <file>`).
 *
 *   npx tsx bench/analytics/api-overhead.ts [--checks 40] [--iterations 60] [--cpu-prof file.cpuprofile]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createAnalyticsReader, parseAnalyticsParams } from '#analytics';
import { createLogger, generateApiKey } from '#core';
import { loadStandaloneConfig, startStandalone } from '../../apps/standalone/index.ts';
import { LOCATIONS, makeResults, randomHex8 } from '../support/results.ts';
import { summarise } from '../support/stats.ts';
import { createAccount, createChecks, ENCRYPTION_KEY } from '../support/vigil.ts';

const DAY = 86_400_000;
const PER_CHECK = 4_000; // the matrix's 2M rows over 500 checks
const METRICS = {
  3: 'responseTime_avg,responseTime_p95,availability',
  12: 'responseTime_avg,responseTime_min,responseTime_max,responseTime_median,responseTime_p90,responseTime_p95,responseTime_p99,responseTime_stddev,dns_avg,firstByte_p95,availability,retries',
};

const { values } = parseArgs({
  options: {
    checks: { type: 'string', default: '40' },
    iterations: { type: 'string', default: '60' },
    'cpu-prof': { type: 'string' },
  },
});
const checks = Number(values.checks);
const iterations = Number(values.iterations);

const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-overhead-'));
const adminKey = generateApiKey();
const running = await startStandalone(
  loadStandaloneConfig({
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    VIGIL_ADMIN_KEY: adminKey,
    VIGIL_ENCRYPTION_KEY: ENCRYPTION_KEY,
    VIGIL_STANDALONE_APPS: 'api,projector',
    VIGIL_RATE_LIMIT_PER_MINUTE: '1000000',
  }),
  createLogger({ level: 'silent' }),
);
try {
  const store = running.platform.analytics!;
  const account = await createAccount(running.url, adminKey);
  const checkIds = await createChecks(account.owner, checks, LOCATIONS);
  const endMs = Math.floor(Date.now() / DAY) * DAY;
  const rows = checks * PER_CHECK;
  const step = (30 * DAY) / rows;
  const shape = {
    accountId: account.accountId,
    checkIds,
    idPrefix: randomHex8(),
    startedMs: (i: number) => endMs - 30 * DAY + Math.floor(i * step),
    seed: 11,
  };
  for (let from = 0; from < rows; from += 50_000)
    await store.insert(makeResults(shape, from, Math.min(50_000, rows - from)));
  await store.rollups.advance().catch(() => undefined);
  if (store.cluster) await store.cluster();
  const headers = { authorization: `Bearer ${account.key}`, 'x-service-account': account.accountId };
  const reader = createAnalyticsReader(store);
  const session = new Session();
  session.connect();

  for (const [n, metrics] of Object.entries(METRICS)) {
    const times = {
      api: [] as number[],
      'api cache hit': [] as number[],
      'GET /v1/accounts/me': [] as number[],
      reader: [] as number[],
      raw: [] as number[],
    };
    const profiling = values['cpu-prof'] !== undefined && n === '3';
    if (profiling) {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
    }
    for (let i = -5; i < iterations; i++) {
      // Every request its own check and window (shifted by a second), so the answer cache misses as in the matrix.
      const checkId = checkIds[(i + 5) % checks]!;
      const shift = i + 5;
      const query = { from: String((endMs - 30 * DAY) / 1000 + shift), to: String(endMs / 1000 + shift), metrics };
      const search = new URLSearchParams(query).toString();
      const parsed = parseAnalyticsParams(query, { checkType: 'API', now: new Date(endMs) });
      const scope = { accountId: account.accountId, checkId, checkType: 'API' as const };
      const sqls: string[] = [];
      const recorder = { ...store, query: async (sql: string) => (sqls.push(sql), []) };
      await createAnalyticsReader(recorder).read({ ...parsed, ...scope });

      let t = performance.now();
      if (profiling && i === 0) await session.post('Profiler.start');
      const response = await fetch(`${running.url}/v1/analytics/api-checks/${checkId}?${search}`, { headers });
      const body = await response.text();
      if (response.status !== 200) throw new Error(`analytics ${response.status}: ${body.slice(0, 300)}`);
      const api = performance.now() - t;
      // The same request again: the answer comes from the cache, so this is the API without the engine.
      t = performance.now();
      const again = await fetch(`${running.url}/v1/analytics/api-checks/${checkId}?${search}`, { headers });
      if ((await again.text()) !== body) throw new Error('the cached answer differs');
      const hit = performance.now() - t;
      // An authenticated read with no engine and no cache: the floor of an HTTP request here.
      t = performance.now();
      await (await fetch(`${running.url}/v1/accounts/me`, { headers })).text();
      const me = performance.now() - t;
      // In turns: the engine's second query in a row is about 1 ms faster than the first after a pause.
      const timeRaw = async () => {
        const started = performance.now();
        await Promise.all(sqls.map((sql) => store.query(sql)));
        return performance.now() - started;
      };
      const timeReader = async () => {
        const started = performance.now();
        await reader.read({ ...parsed, ...scope });
        return performance.now() - started;
      };
      let raw: number, viaReader: number;
      if ((i & 1) === 0) {
        raw = await timeRaw();
        viaReader = await timeReader();
      } else {
        viaReader = await timeReader();
        raw = await timeRaw();
      }
      if (i >= 0) {
        times.api.push(api);
        times['api cache hit'].push(hit);
        times['GET /v1/accounts/me'].push(me);
        times.reader.push(viaReader);
        times.raw.push(raw);
      }
    }
    if (profiling) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(values['cpu-prof']!, JSON.stringify(profile));
    }
    const line = Object.entries(times)
      .map(([mode, samples]) => `${mode} p50 ${summarise(samples).p50} ms`)
      .join(', ');
    console.log(`${n} metrics: ${line}`);
  }
  session.disconnect();
} finally {
  await running.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
