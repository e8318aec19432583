import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbAnalyticsStore, sampleCheckResult, type AnalyticsStore } from '#analytics';
import { createLogger } from '#core';
import type { Check, CheckType } from '#domain';
import { createHttpServer, createMetricsRegistry } from '#http';
import { ReadModels, readModelKeys } from '#readmodels';
import { createSqliteStateStore, type StateStore } from '#statestore';
import type { Access } from '../access.ts';
import { analyticsRoutes } from './analytics.ts';

/**
 * The route module on its own server: read models and the analytics store are real (embedded),
 * the auth hook is a stand-in that trusts an x-test-account header. The real auth and rate
 * limits are exercised end to end in test/analytics/routes.test.ts.
 */
const log = createLogger({ level: 'silent' });
const mine = randomUUID();
const theirs = randomUUID();
let clock = new Date('2024-01-10T12:00:00Z');
let app: FastifyInstance;
let stateStore: StateStore;
let analytics: AnalyticsStore;
const checks: Record<string, Check> = {};

async function addCheck(accountId: string, checkType: CheckType, name: string): Promise<Check> {
  const check: Check = {
    id: randomUUID(),
    name,
    checkType,
    activated: true,
    muted: false,
    frequency: 5,
    tags: ['prod'],
    locations: [],
    groupId: null,
    sslCheckDomain: null,
    runtimeId: null,
    alertSettings: null,
    noDataAlerts: false,
    degradedResponseTime: 1000,
    maxResponseTime: 2000,
  };
  const doc = { status: 'active', accountId, check, createdAt: clock.toISOString(), updatedAt: clock.toISOString() };
  await stateStore.set(readModelKeys.doc('check', check.id), JSON.stringify(doc));
  return check;
}

beforeAll(async () => {
  stateStore = createSqliteStateStore({ path: ':memory:' });
  analytics = createDuckDbAnalyticsStore({ path: ':memory:', log });
  await analytics.migrate();
  checks.api = await addCheck(mine, 'API', 'Homepage API');
  checks.browser = await addCheck(mine, 'BROWSER', 'Checkout');
  checks.heartbeat = await addCheck(mine, 'HEARTBEAT', 'Nightly job');
  checks.foreign = await addCheck(theirs, 'API', 'Not yours');
  const results = [checks.api, checks.foreign].flatMap((check) =>
    Array.from({ length: 12 }, (_, i) =>
      sampleCheckResult({
        accountId: check!.id === checks.foreign!.id ? theirs : mine,
        checkId: check!.id,
        startedAt: new Date(clock.getTime() - (i + 1) * 3_600_000).toISOString(),
        responseTime: 100 + i,
        statusCode: 200,
      }),
    ),
  );
  await analytics.insert(results);

  app = await createHttpServer({ log, title: 'test', version: '0', readiness: [], metrics: createMetricsRegistry() });
  app.decorateRequest('access', null);
  app.addHook('onRequest', async (request) => {
    const accountId = request.headers['x-test-account'];
    if (typeof accountId === 'string') request.access = { accountId, role: 'READ_ONLY' } as Access;
  });
  analyticsRoutes(app, { readModels: new ReadModels(stateStore), analytics, stateStore, now: () => clock });
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await analytics.close();
  await stateStore.close();
});

const get = (url: string, account = mine) => app.inject({ method: 'GET', url, headers: { 'x-test-account': account } });

describe('GET /v1/analytics/{kind}/{id}', () => {
  it('answers with the check, the window, series, pagination and metadata', async () => {
    const response = await get(
      `/v1/analytics/api-checks/${checks.api!.id}?metrics=responseTime_avg&metrics[]=availability`,
    );
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(Object.keys(body)).toEqual([
      'checkId',
      'name',
      'checkType',
      'activated',
      'muted',
      'frequency',
      'from',
      'to',
      'tags',
      'series',
      'pagination',
      'metadata',
    ]);
    expect(body).toMatchObject({
      checkId: checks.api!.id,
      name: 'Homepage API',
      checkType: 'API',
      activated: true,
      muted: false,
      frequency: 5,
      tags: ['prod'],
    });
    expect([body.from, body.to]).toEqual(['2024-01-09T12:00:00.000Z', '2024-01-10T12:00:00.000Z']);
    expect(body.series).toEqual([{ data: [{ responseTime_avg: 105.5, availability: 100 }] }]);
    expect(body.pagination).toEqual({ page: 1, limit: 10 });
    expect(body.metadata.responseTime_avg).toEqual({
      unit: 'milliseconds',
      label: 'Response time (average)',
      aggregation: 'avg',
    });
  });

  it('keeps grouped series keys through the response schema', async () => {
    const response = await get(
      `/v1/analytics/api-checks/${checks.api!.id}?metrics=retries&groupBy=statusCode&aggregationInterval=720`,
    );
    expect(response.statusCode).toBe(200);
    const [entry] = response.json().series;
    expect(entry.statusCode).toBe(200);
    expect(entry.data.map((point: { timestamp: string }) => point.timestamp)).toEqual([
      '2024-01-09T12:00:00.000Z',
      '2024-01-10T00:00:00.000Z',
    ]);
  });

  it('is 404 for another account’s check, exactly as for a missing one', async () => {
    const foreign = await get(`/v1/analytics/api-checks/${checks.foreign!.id}?metrics=availability`);
    const missing = await get(`/v1/analytics/api-checks/${randomUUID()}?metrics=availability`);
    expect(foreign.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    expect(foreign.json().message).toBe(`Check ${checks.foreign!.id} not found`);
    expect((await get(`/v1/analytics/api-checks/not-a-uuid?metrics=availability`)).statusCode).toBe(404);
  });

  it('is 404 for a check of another type', async () => {
    const response = await get(`/v1/analytics/browser-checks/${checks.api!.id}?metrics=availability`);
    expect(response.statusCode).toBe(404);
    expect(response.json().message).toMatch(/has type API, not BROWSER/);
  });

  it.each([
    ['metrics', ''],
    ['metrics', 'metrics=LCP_avg'],
    ['groupBy', 'metrics=availability&groupBy=pageIndex'],
    ['limit', 'metrics=availability&limit=101'],
    ['page', 'metrics=availability&page=0'],
    ['aggregationInterval', 'metrics=availability&aggregationInterval=0'],
    ['quickRange', 'metrics=availability&quickRange=yesterday'],
    ['from', 'metrics=availability&from=soon'],
    ['to', 'metrics=availability&from=1704800000&to=later'],
    ['filterByStatus', 'metrics=availability&filterByStatus=LATE'],
  ])('400 names %s', async (parameter, query) => {
    const response = await get(`/v1/analytics/api-checks/${checks.api!.id}?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(new RegExp(`^${parameter}: `));
  });

  it('refuses any groupBy for heartbeats', async () => {
    const response = await get(
      `/v1/analytics/heartbeat-checks/${checks.heartbeat!.id}?metrics=availability&groupBy=runLocation`,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe('groupBy: HEARTBEAT analytics cannot be grouped; leave groupBy out');
  });

  it('serves repeated queries from the cache for at most 30 s', async () => {
    const url = `/v1/analytics/api-checks/${checks.api!.id}?metrics=retries&from=1704700000&to=1704900000`;
    const before = (await get(url)).json().series[0].data[0].retries;
    await analytics.insert([
      sampleCheckResult({ accountId: mine, checkId: checks.api!.id, startedAt: '2024-01-10T06:30:00Z', attempts: 5 }),
    ]);
    expect((await get(url)).json().series[0].data[0].retries).toBe(before);
    // A quick range is cached per 30 s slot: the next slot recomputes.
    const ranged = `/v1/analytics/api-checks/${checks.api!.id}?metrics=retries`;
    const first = (await get(ranged)).json();
    clock = new Date(clock.getTime() + 30_000);
    const second = (await get(ranged)).json();
    expect(second.to).not.toBe(first.to);
  });
});

describe('GET /v1/analytics/metrics/{checkType}', () => {
  it('answers every check type', async () => {
    for (const type of ['api', 'url', 'tcp', 'browser', 'heartbeat', 'multistep', 'dns', 'playwright']) {
      const response = await get(`/v1/analytics/metrics/${type}?includeExamples=true`);
      expect(response.statusCode).toBe(200);
      expect(response.json().meta.totalMetrics).toBeGreaterThan(0);
    }
    const browser = (await get('/v1/analytics/metrics/browser?category=core_web_vitals')).json();
    expect(browser.data.browserSpecificMetrics[1]).toMatchObject({
      name: 'largestContentfulPaint',
      goodThreshold: 2.5,
      needsImprovementThreshold: 4,
    });
  });

  it('is 400 for another check type', async () => {
    const response = await get('/v1/analytics/metrics/smtp');
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(/^checkType: /);
  });

  it('documents the routes in OpenAPI', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/analytics/multistep-checks/{id}',
        '/v1/analytics/url-monitors/{id}',
        '/v1/analytics/metrics/{checkType}',
      ]),
    );
    const names = doc.paths['/v1/analytics/browser-checks/{id}'].get.parameters.map((p: { name: string }) => p.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'from',
        'to',
        'quickRange',
        'aggregationInterval',
        'filterByStatus',
        'groupBy',
        'metrics',
        'limit',
        'page',
      ]),
    );
  });
});
