import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbAnalyticsStore, type AnalyticsStore } from '#analytics';
import { createLogger } from '#core';
import { createHttpServer, createMetricsRegistry } from '#http';
import { CachedReadModels, createLocalInvalidation, readModelKeys } from '#readmodels';
import { createSqliteStateStore, type StateStore } from '#statestore';
import type { Access } from '../access.ts';
import { analyticsRoutes } from './analytics.ts';

/**
 * The route with the API's read cache, as the app runs it: the check it remembers is never
 * served across a published change (a rename, a deletion). The stand-in auth hook reads the
 * account through the read cache, as the real one does.
 */
const log = createLogger({ level: 'silent' });
const mine = randomUUID();
const invalidation = createLocalInvalidation();
let app: FastifyInstance;
let stateStore: StateStore;
let analytics: AnalyticsStore;

async function putCheck(id: string, name: string, status = 'active') {
  const check = { id, name, checkType: 'API', activated: true, muted: false, frequency: 5, tags: [] };
  const doc = { status, accountId: mine, check, createdAt: '2024-01-01T00:00:00Z', updatedAt: '2024-01-01T00:00:00Z' };
  await stateStore.set(readModelKeys.doc('check', id), JSON.stringify(doc));
}

beforeAll(async () => {
  stateStore = createSqliteStateStore({ path: ':memory:' });
  analytics = createDuckDbAnalyticsStore({ path: ':memory:', log });
  await analytics.migrate();
  await stateStore.set(readModelKeys.doc('account', mine), JSON.stringify({ status: 'active', id: mine }));
  // A clock that stands still: nothing expires here, so only a published change can end what is remembered.
  const readModels = new CachedReadModels(stateStore, invalidation, { ttlMs: 1000, now: () => 1_000_000 });
  app = await createHttpServer({ log, title: 'test', version: '0', readiness: [], metrics: createMetricsRegistry() });
  app.decorateRequest('access', null);
  app.addHook('onRequest', async (request) => {
    if ((await readModels.account(mine)) === null) throw new Error('no account');
    request.access = { accountId: mine, role: 'READ_ONLY' } as Access;
  });
  analyticsRoutes(app, { readModels, analytics, stateStore });
  await app.ready();
});

afterAll(async () => {
  await app.close();
  await analytics.close();
  await stateStore.close();
});

const name = async (id: string) => {
  const response = await app.inject({ method: 'GET', url: `/v1/analytics/api-checks/${id}?metrics=availability` });
  return response.statusCode === 200 ? (response.json() as { name: string }).name : response.statusCode;
};

describe('GET /v1/analytics/{kind}/{id} with the read cache', () => {
  it('answers a change to the check once it is published, and a deletion with 404 at once', async () => {
    const id = randomUUID();
    await putCheck(id, 'first');
    expect(await name(id)).toBe('first');
    await putCheck(id, 'renamed');
    expect(await name(id)).toBe('first'); // remembered: nothing was published
    await invalidation.publish();
    expect(await name(id)).toBe('renamed');
    await putCheck(id, 'renamed', 'deleted');
    await invalidation.publish();
    expect(await name(id)).toBe(404);
  });
});
