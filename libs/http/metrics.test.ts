import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createRequestMetrics } from './metrics.ts';
import { random } from './serializer-fuzz.ts';

describe('request metrics aggregated per route', () => {
  it('scrape the same text as a prom-client histogram and counter fed per request', async () => {
    const aggregated = new Registry();
    const metrics = createRequestMetrics(aggregated);
    // The path before: observe and inc on every request.
    const direct = new Registry();
    const labelNames = ['method', 'route', 'status'];
    const duration = new Histogram({
      name: 'vigil_http_request_duration_seconds',
      help: 'HTTP request latency by route and status',
      labelNames,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [direct],
    });
    const requests = new Counter({
      name: 'vigil_http_requests_total',
      help: 'HTTP requests by route and status',
      labelNames,
      registers: [direct],
    });

    const rng = random(42);
    const routes = ['/v1/variables/:key', '/v1/accounts/me', 'unmatched', '/metrics'];
    const statuses = [200, 201, 404, 429, 500];
    // Bucket bounds exactly, just above them, and past the last one.
    const seconds = [0, 0.001, 0.0010001, 0.0025, 0.004, 0.01, 0.3, 1, 2.5, 2.6, 30];
    for (let i = 0; i < 3000; i++) {
      const method = rng.pick(['GET', 'POST']);
      const route = rng.pick(routes);
      const status = rng.pick(statuses);
      const s = rng.chance(0.5) ? rng.pick(seconds) : rng.next() * 0.05;
      metrics.observe(method, route, status, s);
      const labels = { method, route, status: String(status) };
      duration.observe(labels, s);
      requests.inc(labels);
      // Scrapes in between must not disturb the totals.
      if (i === 1000) await aggregated.metrics();
    }
    const text = await aggregated.metrics();
    expect(text).toContain('vigil_http_requests_total{method="GET",route="/v1/accounts/me",status="200"}');
    expect(text).toBe(await direct.metrics());
  });
});
