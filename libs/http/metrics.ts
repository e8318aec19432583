import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** A Prometheus registry per process, with default Node metrics. */
export function createMetricsRegistry(prefix = 'vigil_'): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix });
  return registry;
}

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** One route, method and status: counts per bucket (not cumulative), their sum and count. */
interface Series {
  labels: { method: string; route: string; status: string };
  perBucket: number[];
  sum: number;
  count: number;
}

/**
 * Request counts and latency per route, method and status. The request path only bumps numbers in
 * a series found by two map look-ups; prom-client's histogram and counter are filled from the
 * series when /metrics is scraped (their `collect`), so names, labels, buckets and values are
 * what `observe` and `inc` per request gave (held to that by `metrics.test.ts`).
 */
export function createRequestMetrics(registry: Registry) {
  // Route, then method, then status: found by three look-ups, with no key string built per request.
  const series = new Map<string, Map<string, Map<number, Series>>>();
  // In order of first sight, as prom-client lists label sets.
  const ordered: Series[] = [];

  function seriesFor(method: string, route: string, status: number): Series {
    let byMethod = series.get(route);
    if (!byMethod) series.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let found = byStatus.get(status);
    if (!found) {
      found = { labels: { method, route, status: String(status) }, perBucket: BUCKETS.map(() => 0), sum: 0, count: 0 };
      byStatus.set(status, found);
      ordered.push(found);
    }
    return found;
  }

  const all = () => ordered;
  // prom-client keeps one entry per label set in `hashMap`; any unique key serves, as export reads the values.
  const key = (s: Series) => `${s.labels.method}|${s.labels.route}|${s.labels.status}`;
  new Histogram({
    name: 'vigil_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: BUCKETS,
    registers: [registry],
    collect() {
      const map: Record<string, unknown> = {};
      for (const s of all()) {
        const bucketValues: Record<number, number> = {};
        BUCKETS.forEach((bound, i) => (bucketValues[bound] = s.perBucket[i]!));
        map[key(s)] = { labels: { ...s.labels }, bucketValues, sum: s.sum, count: s.count };
      }
      (this as unknown as { hashMap: Record<string, unknown> }).hashMap = map;
    },
  });
  new Counter({
    name: 'vigil_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
    collect() {
      const map: Record<string, unknown> = {};
      for (const s of all()) map[key(s)] = { value: s.count, labels: { ...s.labels } };
      (this as unknown as { hashMap: Record<string, unknown> }).hashMap = map;
    },
  });

  return {
    /** One finished request. */
    observe(method: string, route: string, status: number, seconds: number): void {
      const s = seriesFor(method, route, status);
      s.count += 1;
      s.sum += seconds;
      // Above the last bound it counts only in +Inf (the count), as prom-client does.
      for (let i = 0; i < BUCKETS.length; i++)
        if (seconds <= BUCKETS[i]!) {
          s.perBucket[i]! += 1;
          break;
        }
    },
  };
}
export type RequestMetrics = ReturnType<typeof createRequestMetrics>;

/** Serves /metrics (requests are recorded by the server's onResponse hook, with `recordRequest`). */
export function installMetrics(app: FastifyInstance, registry: Registry): void {
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    void reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}

/** What the onResponse hook records: the route pattern, not the URL, keeps label cardinality bounded. */
export function recordRequest(metrics: RequestMetrics, request: FastifyRequest, reply: FastifyReply): void {
  metrics.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
}
