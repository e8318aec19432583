import { mkdtempSync, rmSync } from 'node:fs';

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, generateApiKey } from '#core';
import { createPostgresEventStore } from '#eventstore';
import { freePort, eventually, spawnApp, type AppProcess } from '#test-processes';
import { services, uniqueSuffix } from '#test-support';
import { client, type ApiClient } from '#test-vigil';
import { dropPostgresSchemas, postgresEventStoreEnv } from '../platform/postgres-url.ts';

// The deployment of issue 13 on one machine: two API replicas and a projector, each its own
// process, on PostgreSQL events, Redis state, Kafka and ClickHouse.

async function healthy(url: string, path = '/ready'): Promise<void> {
  await eventually(
    () =>
      fetch(`${url}${path}`).then(
        (r) => r.status,
        () => 0,
      ),
    (status) => status === 200,
    150_000,
  );
}

describe('three processes: two API replicas and a projector on PostgreSQL, Redis, Kafka and ClickHouse', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-three-'));
  const adminKey = generateApiKey();
  const suffix = uniqueSuffix();
  const pgEnv = postgresEventStoreEnv('three');
  const processes: AppProcess[] = [];
  let apiA = '';
  let apiB = '';

  beforeAll(async () => {
    const { REDIS_URL, KAFKA_BROKERS, CLICKHOUSE_URL } = services();
    const env = {
      ...pgEnv,
      REDIS_URL,
      REDIS_KEY_PREFIX: `vigil-three-${suffix}:`,
      KAFKA_BROKERS,
      KAFKA_TOPIC_PREFIX: `t${suffix}.`,
      KAFKA_TOPIC_PARTITIONS: '2',
      CLICKHOUSE_URL,
      CLICKHOUSE_DATABASE: `vigil_three_${suffix}`,
      VIGIL_ENCRYPTION_KEY: 'cd'.repeat(32),
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    };
    const [portA, portB, portProjector] = [await freePort(), await freePort(), await freePort()];
    const api = {
      VIGIL_ADMIN_KEY: adminKey,
      VIGIL_INGEST_KEY: generateApiKey(),
      VIGIL_RATE_LIMIT_PER_MINUTE: '100000',
    };
    processes.push(spawnApp('projector', { ...env, PORT: String(portProjector) }));
    processes.push(spawnApp('api', { ...env, ...api, PORT: String(portA) }));
    processes.push(spawnApp('api', { ...env, ...api, PORT: String(portB) }));
    apiA = `http://127.0.0.1:${portA}`;
    apiB = `http://127.0.0.1:${portB}`;
    try {
      await Promise.all([healthy(apiA), healthy(apiB), healthy(`http://127.0.0.1:${portProjector}`)]);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${processes.map((p) => p.output()).join('\n---\n')}`, {
        cause: error,
      });
    }
  }, 180_000);

  afterAll(async () => {
    for (const app of processes) expect(await app.kill('SIGTERM')).toBe(0);
    await dropPostgresSchemas();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads back through either replica what was written through the other', async () => {
    const created = await client(apiA, adminKey).post('/v1/accounts', {
      name: 'Three',
      plan: 'team',
      ownerEmail: `three-${suffix}@example.com`,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const accountId: string = created.body.account.id;
    const key: string = created.body.apiKey.key;
    const a = client(apiA, key, accountId);
    const b = client(apiB, key, accountId);
    expect((await b.get('/v1/accounts/me')).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const [writer, reader]: [ApiClient, ApiClient] = i % 2 === 0 ? [a, b] : [b, a];
      expect((await writer.post('/v1/variables', { key: `V${i}`, value: `v${i}` })).status).toBe(201);
      const read = await reader.get(`/v1/variables/V${i}`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.value).toBe(`v${i}`);
      expect((await writer.put(`/v1/variables/V${i}`, { value: `w${i}` })).status).toBe(200);
      expect((await reader.get(`/v1/variables/V${i}`)).body.value).toBe(`w${i}`);
    }
  });

  it('gives concurrent writers of one variable 200 or 409, and loses no acknowledged update', async () => {
    const created = await client(apiB, adminKey).post('/v1/accounts', {
      name: 'Race',
      plan: 'team',
      ownerEmail: `race-${suffix}@example.com`,
    });
    const accountId: string = created.body.account.id;
    const key: string = created.body.apiKey.key;
    const replicas = [client(apiA, key, accountId), client(apiB, key, accountId)];
    expect((await replicas[0]!.post('/v1/variables', { key: 'SHARED', value: 'start' })).status).toBe(201);

    const writes = Array.from({ length: 24 }, (_, i) => `value-${i}`);
    const statuses = await Promise.all(
      writes.map((value, i) => replicas[i % 2]!.put('/v1/variables/SHARED', { value }).then((r) => r.status)),
    );
    expect(
      statuses.every((status) => status === 200 || status === 409),
      statuses.join(','),
    ).toBe(true);
    const acknowledged = writes.filter((_, i) => statuses[i] === 200);
    expect(acknowledged.length).toBeGreaterThan(0);

    // The stream is the truth: every acknowledged update is in it exactly once, and nothing else.
    const store = await createPostgresEventStore({
      connectionString: pgEnv.EVENTSTORE_URL,
      schema: pgEnv.EVENTSTORE_SCHEMA,
      log: createLogger({ level: 'silent' }),
    });
    try {
      const updates = (await store.readStream(`variable-${accountId}-SHARED`))
        .filter((event) => event.type === 'VariableUpdated')
        .map((event) => event.data.value as string);
      expect([...updates].sort()).toEqual([...acknowledged].sort());
      for (const replica of replicas)
        expect((await replica.get('/v1/variables/SHARED')).body.value).toBe(updates.at(-1));
    } finally {
      await store.close();
    }
  });
});
