import { describe, expect, it } from 'vitest';
import { createLogger } from '#core';
import { createHttpServer } from './server.ts';
import { createMetricsRegistry } from './metrics.ts';

describe('health, readiness and metrics', () => {
  it('/ready names the adapter that fails; /health stays up; /metrics speaks Prometheus', async () => {
    const app = await createHttpServer({
      log: createLogger({ level: 'silent' }),
      title: 't',
      version: '1',
      metrics: createMetricsRegistry(),
      readiness: [
        { name: 'eventStore', check: async () => undefined },
        { name: 'stateStore', check: async () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379')) },
        { name: 'slow', check: () => new Promise(() => undefined) },
      ],
    });
    const ready = await app.inject('/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({
      status: 'not_ready',
      checks: {
        eventStore: { ok: true },
        stateStore: { ok: false, error: 'connect ECONNREFUSED 127.0.0.1:6379' },
        slow: { ok: false, error: expect.stringMatching(/did not answer/) },
      },
    });
    expect((await app.inject('/health')).json()).toEqual({ status: 'ok' });
    const metrics = await app.inject('/metrics');
    expect(metrics.body).toMatch(/vigil_http_requests_total\{method="GET",route="\/ready",status="503"\} 1/);
    await app.close();
  });

  it('answers parse errors, unknown routes and oversized bodies with the error shape', async () => {
    const app = await createHttpServer({
      log: createLogger({ level: 'silent' }),
      title: 't',
      version: '1',
      metrics: createMetricsRegistry(),
      readiness: [],
      bodyLimit: 100,
    });
    app.post('/echo', async (request) => request.body);
    await app.ready();
    const bad = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    const big = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ a: 'x'.repeat(200) }),
    });
    expect(big.json()).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
    expect((await app.inject('/nope')).json()).toMatchObject({ statusCode: 404, error: 'Not Found' });
    await app.close();
  });
});
