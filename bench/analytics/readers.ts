/**
 * Readers under concurrency: how high-volume analytics readers use the API. D dashboards each
 * watch C checks (dashboard d watches checks d·C/2 … d·C/2 + C - 1, so every check is on two
 * dashboards) and poll them every --readers-poll-ms: a 24-hour chart in hourly buckets, 3
 * metrics, as a browser would ask it (6 requests at a time per dashboard). Starts are spread over
 * the first poll interval. Prints request latency p50/p99 and the analytics cache's hit rate.
 *
 * The hit rate is counted, not guessed: the store's query function is wrapped for the run, and
 * every aggregate statement the reader sends (SQL with GROUP BY g) is one miss; for these run
 * metrics a miss sends exactly one.
 */
import type { AnalyticsStore } from '#analytics';
import { sleep, summarise, type Summary } from '../support/stats.ts';

export interface ReadersOptions {
  dashboards: number;
  checksPerDashboard: number;
  seconds: number;
  pollMs: number;
}

export interface ReadersResult {
  dashboards: number;
  checksPerDashboard: number;
  seconds: number;
  pollMs: number;
  requests: number;
  errors: number;
  perSecond: number;
  latency: Summary;
  misses: number;
  hitRate: number;
}

const PARAMS = {
  quickRange: 'last24Hours',
  aggregationInterval: '60',
  metrics: 'responseTime_avg,responseTime_p95,availability',
};
/** Requests a browser sends at once to one host. */
const PER_DASHBOARD = 6;

export async function readersUnderConcurrency(
  options: ReadersOptions,
  target: { url: string; headers: Record<string, string>; checkIds: readonly string[]; store: AnalyticsStore },
): Promise<ReadersResult> {
  const { dashboards, checksPerDashboard, seconds, pollMs } = options;
  const { checkIds, store } = target;
  const query = new URLSearchParams(PARAMS).toString();
  const latencies: number[] = [];
  let errors = 0;
  let misses = 0;
  const mutable = store as { query: AnalyticsStore['query'] };
  const original = store.query;
  mutable.query = ((sql: string) => {
    if (sql.includes('GROUP BY g')) misses++;
    return original.call(store, sql);
  }) as AnalyticsStore['query'];

  const started = performance.now();
  const endAt = started + seconds * 1000;
  const fetchOne = async (checkId: string) => {
    const t0 = performance.now();
    try {
      const response = await fetch(`${target.url}/v1/analytics/api-checks/${checkId}?${query}`, {
        headers: target.headers,
      });
      await response.arrayBuffer();
      if (response.status !== 200) errors++;
    } catch {
      errors++;
    }
    latencies.push(performance.now() - t0);
  };
  const dashboard = async (d: number) => {
    const own = Array.from(
      { length: checksPerDashboard },
      (_, j) => checkIds[(d * Math.ceil(checksPerDashboard / 2) + j) % checkIds.length]!,
    );
    await sleep((pollMs * d) / dashboards);
    while (performance.now() < endAt) {
      const pollStarted = performance.now();
      const queue = [...own];
      await Promise.all(
        Array.from({ length: PER_DASHBOARD }, async () => {
          for (let id = queue.shift(); id !== undefined; id = queue.shift()) await fetchOne(id);
        }),
      );
      const wait = pollMs - (performance.now() - pollStarted);
      if (wait > 0 && performance.now() + wait < endAt) await sleep(wait);
      else if (wait > 0) break;
    }
  };
  try {
    await Promise.all(Array.from({ length: dashboards }, (_, d) => dashboard(d)));
  } finally {
    mutable.query = original;
  }
  const elapsed = (performance.now() - started) / 1000;
  const requests = latencies.length;
  return {
    dashboards,
    checksPerDashboard,
    seconds,
    pollMs,
    requests,
    errors,
    perSecond: Math.round(requests / elapsed),
    latency: summarise(latencies),
    misses,
    hitRate: requests === 0 ? 0 : Math.round((1 - misses / requests) * 1000) / 1000,
  };
}
