import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCheckWindow,
  createDuckDbAnalyticsStore,
  createStateStoreTokens,
  sampleCheckResult,
  withChangeTokens,
  type AnalyticsStore,
  type ChangeTokens,
  type CheckWindow,
} from '#analytics';
import { createLogger } from '#core';
import type { Check } from '#domain';
import { createHttpServer, createMetricsRegistry } from '#http';
import { ReadModels, readModelKeys } from '#readmodels';
import { createSqliteStateStore, type StateStore } from '#statestore';
import type { Access } from '../access.ts';
import { analyticsRoutes } from './analytics.ts';

/**
 * The route with a check window: on a cache miss the check's change token comes with the cache's
 * own read, so the window reads no token itself. Real embedded stores; the auth hook is a
 * stand-in that trusts an x-test-account header, as in analytics.test.ts.
 */
const log = createLogger({ level: 'silent' });
const account = randomUUID();
const checkId = randomUUID();
let app: FastifyInstance;
let stateStore: StateStore;
let analytics: AnalyticsStore;
let window: CheckWindow;
const tokenReads = { count: 0 };

beforeAll(async () => {
  stateStore = createSqliteStateStore({ path: ':memory:' });
  analytics = createDuckDbAnalyticsStore({ path: ':memory:', log });
  await analytics.migrate();
  const now = new Date().toISOString();
  const check: Check = {
    id: checkId,
    name: 'Windowed',
    checkType: 'API',
    activated: true,
    muted: false,
    frequency: 5,
    tags: [],
    locations: [],
    groupId: null,
    sslCheckDomain: null,
    runtimeId: null,
    alertSettings: null,
    noDataAlerts: false,
    degradedResponseTime: 1000,
    maxResponseTime: 2000,
  };
  const doc = { status: 'active', accountId: account, check, createdAt: now, updatedAt: now };
  await stateStore.set(readModelKeys.doc('check', checkId), JSON.stringify(doc));
  const tokens = createStateStoreTokens(stateStore);
  const counting: ChangeTokens = { ...tokens, read: (keys) => (tokenReads.count++, tokens.read(keys)) };
  const at = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
  await withChangeTokens(analytics, tokens).insert(
    [30, 20].map((minutes, i) =>
      sampleCheckResult({ accountId: account, checkId, startedAt: at(minutes), responseTime: 100 + 200 * i }),
    ),
  );
  window = createCheckWindow(analytics, { tokens: counting, maxRows: 10_000, log });
  app = await createHttpServer({ log, title: 'test', version: '0', readiness: [], metrics: createMetricsRegistry() });
  app.decorateRequest('access', null);
  app.addHook('onRequest', async (request) => {
    request.access = { accountId: request.headers['x-test-account'], role: 'READ_ONLY' } as Access;
  });
  analyticsRoutes(app, { readModels: new ReadModels(stateStore), analytics, stateStore, window });
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await analytics.close();
  await stateStore.close();
});

const ask = async (metrics: string) => {
  const response = await app.inject({
    method: 'GET',
    url: `/v1/analytics/api-checks/${checkId}?metrics=${metrics}`,
    headers: { 'x-test-account': account },
  });
  expect(response.statusCode).toBe(200);
  return response.json<{ series: unknown }>().series;
};

describe('GET /v1/analytics/api-checks/{id} with a check window', () => {
  it('answers from memory with the token read alongside the cache, not by a read of its own', async () => {
    expect(await ask('responseTime_avg')).toEqual([{ data: [{ responseTime_avg: 200 }] }]);
    await window.settled();
    // The load read the token once, before its rows.
    expect(window.stats()).toMatchObject({ loads: 1, hits: 0 });
    const reads = tokenReads.count;
    // A different question: the answer cache cannot give it, the window does.
    expect(await ask('responseTime_max')).toEqual([{ data: [{ responseTime_max: 300 }] }]);
    expect(window.stats()).toMatchObject({ hits: 1 });
    expect(tokenReads.count).toBe(reads);
  });

  it("never serves another account's check from the window", async () => {
    const response = await app.inject({
      method: 'GET',
      url: `/v1/analytics/api-checks/${checkId}?metrics=responseTime_min`,
      headers: { 'x-test-account': randomUUID() },
    });
    expect(response.statusCode).toBe(404);
  });
});
