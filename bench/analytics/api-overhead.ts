/**
 * Where the API's time goes on a one-check analytics query on DuckDB (issues 16 and 26): the
 * matrix's 30-day "one value" cell (3 or 12 metrics) on a small load with the matrix's rows per
 * check. Per request, one after the other so load changes hit all of them alike:
 * - a miss through HTTP (a fresh check and window, as in the matrix), then the same request again
 *   (a cache hit: the API without the engine), and `GET /v1/accounts/me` (HTTP and auth alone);
 * - the reader alone and the reader's raw SQL through the store's client, in turns;
 * - with --postgres (default on), after all of those, PostgreSQL's engine on the same rows
 *   (postgres-baseline.ts's query, through psql, no API in front; its cluster started only then):
 *   issue 26's "one check at least as fast as PostgreSQL", one target line per metric set.
 * A miss is split into HTTP+auth (accounts/me; of it, bare node:http sending the same bytes through
 * the same client, and fastify+auth above that), the route (miss − reader − HTTP+auth: validation,
 * check look-up, cache, serialisation), the reader (reader − raw) and the engine (raw), in µs,
 * each the median of its per-request values. With --cpu-prof, a V8 profile of --profile-requests
 * misses alone (no reader or engine calls between them) is written; summarise it with
 * `npm run bench -- profile <file>`.
 *
 *   npx tsx bench/analytics/api-overhead.ts [--checks 40] [--iterations 60] [--metrics 3,12] [--no-postgres]
 *                                           [--cpu-prof file.cpuprofile] [--profile-requests 400]
 */
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createAnalyticsReader, parseAnalyticsParams } from '#analytics';
import { repoRoot } from '../support/processes.ts';
import { copyIn, psql, PsqlSession, postgresDown, postgresUp } from '../support/postgres.ts';
import { LOCATIONS, makeResults, randomHex8, type Shape } from '../support/results.ts';
import { ratio } from '../support/stats.ts';
import { createAccount, createChecks } from '../support/vigil.ts';
import { PG_DATABASE, postgresSql } from './postgres-baseline.ts';
import { startAnalyticsVigil } from './standalone.ts';
import { remoteClient } from './remote-client.ts';

const DAY = 86_400_000;
const PER_CHECK = 4_000; // the matrix's 2M rows over 500 checks
const METRICS: Record<string, string> = {
  3: 'responseTime_avg,responseTime_p95,availability',
  12: 'responseTime_avg,responseTime_min,responseTime_max,responseTime_median,responseTime_p90,responseTime_p95,responseTime_p99,responseTime_stddev,dns_avg,firstByte_p95,availability,retries',
};
// Its own table, so a matrix run's bench_check_results is never dropped under it.
const PG_TABLE = 'bench_overhead_results';

const { values } = parseArgs({
  options: {
    checks: { type: 'string', default: '40' },
    iterations: { type: 'string', default: '60' },
    metrics: { type: 'string', default: '3,12' },
    postgres: { type: 'boolean', default: true },
    'no-postgres': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    'profile-requests': { type: 'string', default: '400' },
  },
});
const checks = Number(values.checks);
const iterations = Number(values.iterations);
const withPostgres = values.postgres && !values['no-postgres'];

const median = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const us = (ms: number) => `${Math.round(ms * 1000)} µs`;
const load = () => loadavg()[0]!.toFixed(2);

/** The same rows as the store's, in PostgreSQL with postgres-baseline.ts's columns and index. */
async function loadPostgres(shape: Shape, rows: number): Promise<void> {
  await psql(PG_DATABASE, `DROP TABLE IF EXISTS ${PG_TABLE}`);
  await psql(
    PG_DATABASE,
    `CREATE TABLE ${PG_TABLE} (id uuid, account_id uuid, check_id uuid, started_at timestamptz, run_location text,
      has_failures smallint, response_time double precision, attempts integer, status_code integer,
      timing_wait double precision, timing_dns double precision, timing_tcp double precision,
      timing_first_byte double precision, timing_download double precision)`,
  );
  function* csv(): Generator<string> {
    for (let from = 0; from < rows; from += 20_000) {
      const batch = makeResults(shape, from, Math.min(20_000, rows - from));
      const t = (r: (typeof batch)[number]) => r.timings;
      yield batch
        .map((r) =>
          [
            r.id,
            r.accountId,
            r.checkId,
            r.startedAt,
            r.runLocation,
            r.hasFailures ? 1 : 0,
            r.responseTime,
            r.attempts,
            r.statusCode ?? '',
            t(r)?.wait ?? '',
            t(r)?.dns ?? '',
            t(r)?.tcp ?? '',
            t(r)?.firstByte ?? '',
            t(r)?.download ?? '',
          ].join(','),
        )
        .join('\n')
        .concat('\n');
    }
  }
  await copyIn(PG_DATABASE, PG_TABLE, csv());
  await psql(PG_DATABASE, `CREATE INDEX ${PG_TABLE}_key ON ${PG_TABLE} (account_id, check_id, started_at)`);
  await psql(PG_DATABASE, `VACUUM ANALYZE ${PG_TABLE}`);
}

const postgresWasRunning = (() => {
  try {
    return execFileSync('bash', [`${repoRoot}bench/support/postgres.sh`, 'status'], { stdio: 'pipe' })
      .toString()
      .includes('server is running');
  } catch {
    return false;
  }
})();

const { running, adminKey, stop } = await startAnalyticsVigil('duckdb');
// The floor of any request here: bare node:http on this loop sending the last answer's bytes,
// to the same client (in its own process, as in the matrix).
let bareBody = '{}';
// Every HTTP request is sent and timed by a client in a process of its own (remote-client.ts).
const client = remoteClient();
const bare = createServer((_, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
  response.end(bareBody);
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;
let pg: PsqlSession | undefined;
try {
  const store = running.platform.analytics!;
  const account = await createAccount(running.url, adminKey);
  // Each mode its own checks (the same data shape), so none warms the next one's rows.
  const checkIds = await createChecks(account.owner, checks * 2, LOCATIONS);
  const endMs = Math.floor(Date.now() / DAY) * DAY;
  const rows = checks * 2 * PER_CHECK;
  const step = (30 * DAY) / rows;
  const shape: Shape = {
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
  const apiCheck = (i: number) => checkIds[(((i + 5) % checks) + checks) % checks]!;
  const engineCheck = (i: number) => checkIds[checks + ((((i + 5) % checks) + checks) % checks)]!;
  // Every request its own window (shifted by a second), so the answer cache misses as in the matrix.
  const window = (i: number) => ({ from: (endMs - 30 * DAY) / 1000 + i + 5, to: endMs / 1000 + i + 5 });
  const miss = async (checkId: string, search: string) => {
    const response = await client.get(`${running.url}/v1/analytics/api-checks/${checkId}?${search}`, headers);
    if (response.status !== 200) throw new Error(`analytics ${response.status}: ${response.body.slice(0, 300)}`);
    return response;
  };

  console.log(
    `one check: ${PER_CHECK} runs in 30 days, ${checks} checks per mode, ${iterations} requests per row; DuckDB (the embedded default); load ${load()} at the start`,
  );
  await client.warm(`${running.url}/v1/accounts/me`, headers);
  const apiP50 = new Map<string, number>();
  for (const n of values.metrics.split(',')) {
    const metrics = METRICS[n]!;
    const times = {
      miss: [] as number[],
      hit: [] as number[],
      me: [] as number[],
      bare: [] as number[],
      reader: [] as number[],
    };
    const parts = {
      bare: [] as number[],
      api: [] as number[],
      route: [] as number[],
      reader: [] as number[],
      engine: [] as number[],
    };
    for (let i = -5; i < iterations; i++) {
      const { from, to } = window(i);
      const query = { from: String(from), to: String(to), metrics };
      const search = new URLSearchParams(query).toString();
      const parsed = parseAnalyticsParams(query, { checkType: 'API', now: new Date(endMs) });
      const scope = { accountId: account.accountId, checkId: engineCheck(i), checkType: 'API' as const };
      const sqls: string[] = [];
      const recorder = { ...store, query: async (sql: string) => (sqls.push(sql), []) };
      await createAnalyticsReader(recorder).read({ ...parsed, ...scope });

      const first = await miss(apiCheck(i), search);
      const body = first.body;
      const api = first.ms;
      // The same request again: the answer comes from the cache, so this is the API without the engine.
      const again = await miss(apiCheck(i), search);
      if (again.body !== body) throw new Error('the cached answer differs');
      const hit = again.ms;
      // An authenticated read with no engine and no cache: the floor of an HTTP request here.
      const me = (await client.get(`${running.url}/v1/accounts/me`, headers)).ms;
      bareBody = body;
      const bareMs = (await client.get(bareUrl, {})).ms;
      // In turns: the engine's second query in a row is about 1 ms faster than the first after a pause.
      const timeRaw = async () => {
        const started = performance.now();
        await Promise.all(sqls.map((sql) => store.query(sql)));
        return performance.now() - started;
      };
      const timeReader = async () => {
        const started = performance.now();
        await reader.read({ ...parsed, ...scope, checkId: engineCheck(i + 1) });
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
      if (i < 0) continue;
      times.miss.push(api);
      times.hit.push(hit);
      times.me.push(me);
      times.bare.push(bareMs);
      times.reader.push(viaReader);
      parts.bare.push(bareMs);
      parts.api.push(me - bareMs);
      parts.route.push(api - viaReader - me);
      parts.reader.push(viaReader - raw);
      parts.engine.push(raw);
    }
    const p50 = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])) as Record<
      keyof typeof times,
      number
    >;
    console.log(
      `${n} metrics (load ${load()}): miss through the API p50 ${us(p50.miss)}, cache hit ${us(p50.hit)}, GET /v1/accounts/me ${us(p50.me)}, bare node:http ${us(p50.bare)}, reader ${us(p50.reader)}`,
    );
    console.log(
      `  a miss, split (medians per request): HTTP+auth ${us(p50.me)} (bare HTTP to the same client ${us(median(parts.bare))}, fastify+auth ${us(median(parts.api))}), route ${us(median(parts.route))}, reader ${us(median(parts.reader))}, engine ${us(median(parts.engine))}`,
    );
    apiP50.set(n, p50.miss);
  }

  if (values['cpu-prof'] !== undefined) {
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    const metrics = METRICS[values.metrics.split(',')[0]!]!;
    const count = Number(values['profile-requests']);
    await session.post('Profiler.start');
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const { from, to } = window(iterations + 10 + i); // windows the timed rows never asked: misses
      await miss(apiCheck(i), new URLSearchParams({ from: String(from), to: String(to), metrics }).toString());
    }
    const elapsed = performance.now() - started;
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(values['cpu-prof'], JSON.stringify(profile));
    session.disconnect();
    console.log(`profile: ${count} misses back to back, ${us(elapsed / count)} each; written to ${values['cpu-prof']}`);
  }

  // PostgreSQL last, as in the matrix: its server running beside the loops above (after a bulk
  // load) took the other core often enough to add 0.5-1 ms to the API's misses under load.
  if (withPostgres) {
    await postgresUp();
    await loadPostgres(shape, rows);
    pg = new PsqlSession(PG_DATABASE);
    for (const [n, apiMs] of apiP50) {
      const postgres: number[] = [];
      for (let i = -5; i < iterations; i++) {
        const { from, to } = window(i);
        const sql = postgresSql({
          accountId: account.accountId,
          checkId: engineCheck(i + 2),
          fromMs: from * 1000,
          toMs: to * 1000,
          metrics: METRICS[n]!.split(','),
          intervalMinutes: null,
          groupByLocation: false,
        }).replace('bench_check_results', PG_TABLE);
        const ms = await pg.time(sql);
        if (i >= 0) postgres.push(ms);
      }
      const pgMs = median(postgres);
      const r = ratio(pgMs, apiMs);
      console.log(
        `target (issue 26, one check, ${n} metrics; load ${load()}): DuckDB through the API p50 ${apiMs.toFixed(2)} ms ≤ 10 ms and ≥ PostgreSQL: PostgreSQL engine p50 ${pgMs.toFixed(2)} ms (psql, no API), PG ÷ API ${r}: ${apiMs <= 10 && r >= 1 ? 'met' : 'missed'}`,
      );
    }
  }
} finally {
  client.close();
  bare.close();
  pg?.close();
  await stop();
  if (withPostgres && !postgresWasRunning) await postgresDown();
}
