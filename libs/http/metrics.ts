import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** A Prometheus registry per process, with default Node metrics. */
export function createMetricsRegistry(prefix = 'vigil_'): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix });
  return registry;
}

/** Records request counts and latency per route and serves /metrics. */
export function installMetrics(app: FastifyInstance, registry: Registry): void {
  const duration = new Histogram({
    name: 'vigil_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const requests = new Counter({
    name: 'vigil_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, not the URL, keeps label cardinality bounded.
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    duration.observe(labels, reply.elapsedTime / 1000);
    requests.inc(labels);
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    void reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
